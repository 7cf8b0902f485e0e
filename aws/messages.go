package aws

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// EventBridge event sources and detail types the interruption queue understands.
const (
	sourceEC2    = "aws.ec2"
	sourceHealth = "aws.health"

	detailSpotInterruption        = "EC2 Spot Instance Interruption Warning"
	detailRebalanceRecommendation = "EC2 Instance Rebalance Recommendation"
	detailStateChange             = "EC2 Instance State-change Notification"
	detailCapacityReservation     = "EC2 Capacity Reservation Instance Interruption Warning"
	detailHealth                  = "AWS Health Event"
)

// spotWarning is how long after its warning a spot instance is reclaimed.
const spotWarning = 2 * time.Minute

// eventBridgeEvent is the envelope of every EventBridge event.
type eventBridgeEvent struct {
	Version    string          `json:"version"`
	ID         string          `json:"id"`
	DetailType string          `json:"detail-type"`
	Source     string          `json:"source"`
	Time       string          `json:"time"`
	Region     string          `json:"region"`
	Resources  []string        `json:"resources"`
	Detail     json.RawMessage `json:"detail"`
}

// ec2InstanceDetail is the detail of the EC2 instance events.
type ec2InstanceDetail struct {
	InstanceID     string `json:"instance-id"`
	InstanceAction string `json:"instance-action"`
	State          string `json:"state"`
}

// healthDetail is the detail of an AWS Health event.
type healthDetail struct {
	Service           string `json:"service"`
	EventTypeCode     string `json:"eventTypeCode"`
	EventTypeCategory string `json:"eventTypeCategory"`
	StartTime         string `json:"startTime"`
	EventDescription  []struct {
		LatestDescription string `json:"latestDescription"`
	} `json:"eventDescription"`
	AffectedEntities []struct {
		EntityValue string `json:"entityValue"`
	} `json:"affectedEntities"`
}

// ParseMessage reads the body of an interruption queue message: an EventBridge event for a spot
// interruption warning, a rebalance recommendation, an instance state change, a capacity
// reservation interruption warning or an AWS Health scheduled change. It returns one
// interruption per instance the event names, none for an event that needs no action (another
// source or kind, a state change to pending or running, a Health event that is not an EC2
// scheduled change), and an error for a body that is not such an event.
func ParseMessage(body string) ([]cloudprovider.Interruption, error) {
	var ev eventBridgeEvent
	if err := json.Unmarshal([]byte(body), &ev); err != nil {
		return nil, fmt.Errorf("not an EventBridge event: %w", err)
	}
	if ev.Source == "" || ev.DetailType == "" {
		return nil, errors.New("not an EventBridge event: no source or detail-type")
	}
	at, _ := time.Parse(time.RFC3339, ev.Time)
	switch {
	case ev.Source == sourceEC2:
		return parseEC2Event(ev, at)
	case ev.Source == sourceHealth && ev.DetailType == detailHealth:
		return parseHealthEvent(ev, at)
	}
	return nil, nil
}

func parseEC2Event(ev eventBridgeEvent, at time.Time) ([]cloudprovider.Interruption, error) {
	var kind cloudprovider.InterruptionKind
	switch ev.DetailType {
	case detailSpotInterruption:
		kind = cloudprovider.SpotInterruption
	case detailRebalanceRecommendation:
		kind = cloudprovider.RebalanceRecommendation
	case detailStateChange:
		kind = cloudprovider.StateChange
	case detailCapacityReservation:
		kind = cloudprovider.CapacityReservationInterruption
	default:
		return nil, nil
	}
	var d ec2InstanceDetail
	if err := json.Unmarshal(ev.Detail, &d); err != nil {
		return nil, fmt.Errorf("%s event %q: detail: %w", ev.DetailType, ev.ID, err)
	}
	if !isInstanceID(d.InstanceID) {
		return nil, fmt.Errorf("%s event %q: instance-id %q is not an instance id", ev.DetailType, ev.ID, d.InstanceID)
	}
	in := cloudprovider.Interruption{Kind: kind, InstanceID: d.InstanceID, At: at, Drain: true, Detail: d.InstanceAction}
	switch kind {
	case cloudprovider.SpotInterruption:
		if !at.IsZero() {
			in.Deadline = at.Add(spotWarning)
		}
	case cloudprovider.RebalanceRecommendation:
		in.Drain = false
	case cloudprovider.StateChange:
		switch d.State {
		case "stopping", "stopped", "shutting-down", "terminated":
			in.Detail = d.State
		default:
			return nil, nil // pending and running need nothing
		}
	}
	return []cloudprovider.Interruption{in}, nil
}

func parseHealthEvent(ev eventBridgeEvent, at time.Time) ([]cloudprovider.Interruption, error) {
	var d healthDetail
	if err := json.Unmarshal(ev.Detail, &d); err != nil {
		return nil, fmt.Errorf("%s event %q: detail: %w", ev.DetailType, ev.ID, err)
	}
	if d.Service != "EC2" || d.EventTypeCategory != "scheduledChange" {
		return nil, nil
	}
	detail := d.EventTypeCode
	if len(d.EventDescription) > 0 && d.EventDescription[0].LatestDescription != "" {
		detail += ": " + d.EventDescription[0].LatestDescription
	}
	deadline := parseHealthTime(d.StartTime)
	var out []cloudprovider.Interruption
	for _, e := range d.AffectedEntities {
		if !isInstanceID(e.EntityValue) {
			continue // Health events may name other resources too
		}
		out = append(out, cloudprovider.Interruption{Kind: cloudprovider.ScheduledChange, InstanceID: e.EntityValue,
			Detail: detail, At: at, Deadline: deadline, Drain: true})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s event %q: scheduled change names no instance", ev.DetailType, ev.ID)
	}
	return out, nil
}

// parseHealthTime reads AWS Health's times ("Sat, 05 Jun 2021 10:00:00 GMT", or RFC 3339).
func parseHealthTime(s string) time.Time {
	for _, layout := range []string{time.RFC1123, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// isInstanceID reports whether s looks like an EC2 instance id.
func isInstanceID(s string) bool {
	rest, ok := strings.CutPrefix(s, "i-")
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
