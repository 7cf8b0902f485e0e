package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// InterruptionKind names an event the emulator can deliver into the interruption queue.
type InterruptionKind string

// The interruption kinds, each delivered as EventBridge delivers the AWS event.
const (
	// SpotInterruption sends "EC2 Spot Instance Interruption Warning" and terminates the
	// (spot) instance two minutes of emulator time later, with state-change events.
	SpotInterruption InterruptionKind = "spot-interruption"
	// RebalanceRecommendation sends "EC2 Instance Rebalance Recommendation"; nothing else happens.
	RebalanceRecommendation InterruptionKind = "rebalance-recommendation"
	// ScheduledChange sends an "AWS Health Event" of category scheduledChange for the instance
	// (a retirement starting in 14 days); nothing else happens.
	ScheduledChange InterruptionKind = "scheduled-change"
	// StateChange moves the instance to State (stopping, stopped, shutting-down or terminated)
	// and sends "EC2 Instance State-change Notification" for each state it passes through.
	StateChange InterruptionKind = "state-change"
	// CapacityReservationInterruption sends "EC2 Capacity Reservation Instance Interruption
	// Warning" and terminates the instance two minutes later, like a spot interruption.
	CapacityReservationInterruption InterruptionKind = "capacity-reservation-interruption"
)

// InterruptionNotice is, by default, how long a spot or capacity reservation interruption warning comes
// before the termination.
const InterruptionNotice = 2 * time.Minute

// Interruption is one injected event.
type Interruption struct {
	Kind       InterruptionKind `json:"kind"`
	InstanceID string           `json:"instanceId"`
	// State is the target state of a StateChange.
	State string `json:"state,omitempty"`
}

// eventBridgeEvent is the envelope EventBridge puts around every event it delivers to SQS.
type eventBridgeEvent struct {
	Version    string   `json:"version"`
	ID         string   `json:"id"`
	DetailType string   `json:"detail-type"`
	Source     string   `json:"source"`
	Account    string   `json:"account"`
	Time       string   `json:"time"`
	Region     string   `json:"region"`
	Resources  []string `json:"resources"`
	Detail     any      `json:"detail"`
}

type instanceActionDetail struct {
	InstanceID     string `json:"instance-id"`
	InstanceAction string `json:"instance-action"`
}

type instanceDetail struct {
	InstanceID string `json:"instance-id"`
}

type stateChangeDetail struct {
	InstanceID string `json:"instance-id"`
	State      string `json:"state"`
}

type healthDetail struct {
	EventArn          string              `json:"eventArn"`
	Service           string              `json:"service"`
	EventScopeCode    string              `json:"eventScopeCode"`
	EventTypeCode     string              `json:"eventTypeCode"`
	EventTypeCategory string              `json:"eventTypeCategory"`
	EventRegion       string              `json:"eventRegion"`
	StartTime         string              `json:"startTime"`
	EndTime           string              `json:"endTime"`
	StatusCode        string              `json:"statusCode"`
	EventDescription  []healthDescription `json:"eventDescription"`
	AffectedEntities  []healthEntity      `json:"affectedEntities"`
}

type healthDescription struct {
	Language          string `json:"language"`
	LatestDescription string `json:"latestDescription"`
}

type healthEntity struct {
	EntityValue string `json:"entityValue"`
}

// Interrupt delivers an interruption event for an instance into the interruption queue and
// applies its consequences (see InterruptionKind).
func (e *Emulator) Interrupt(in Interruption) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance()
	inst := e.instances[in.InstanceID]
	if inst == nil {
		return fmt.Errorf("interrupt %s: instance %q does not exist", in.Kind, in.InstanceID)
	}
	now := e.now()
	live := inst.State == StatePending || inst.State == StateRunning
	switch in.Kind {
	case SpotInterruption, CapacityReservationInterruption:
		if !live {
			return fmt.Errorf("interrupt %s: instance %q is %s", in.Kind, inst.ID, inst.State)
		}
		if in.Kind == SpotInterruption && inst.CapacityType != capacitySpot {
			return fmt.Errorf("interrupt %s: instance %q is %s, not spot", in.Kind, inst.ID, inst.CapacityType)
		}
		detailType, reason := "EC2 Spot Instance Interruption Warning", reasonSpot
		if in.Kind == CapacityReservationInterruption {
			detailType, reason = "EC2 Capacity Reservation Instance Interruption Warning", reasonReservation
		}
		e.publish(detailType, "aws.ec2", []string{e.instanceArn(inst)}, instanceActionDetail{InstanceID: inst.ID, InstanceAction: "terminate"}, now)
		inst.interruptAt, inst.interruptReason = now.Add(e.cfg.InterruptionNotice), reason
		e.reschedule(inst)
	case RebalanceRecommendation:
		if !live {
			return fmt.Errorf("interrupt %s: instance %q is %s", in.Kind, inst.ID, inst.State)
		}
		e.publish("EC2 Instance Rebalance Recommendation", "aws.ec2", []string{e.instanceArn(inst)}, instanceDetail{InstanceID: inst.ID}, now)
	case ScheduledChange:
		if inst.State == StateTerminated || inst.State == StateShuttingDown {
			return fmt.Errorf("interrupt %s: instance %q is %s", in.Kind, inst.ID, inst.State)
		}
		e.publishHealth(inst, now)
	case StateChange:
		if err := e.changeState(inst, in.State, now); err != nil {
			return err
		}
	default:
		return fmt.Errorf("interrupt: unknown kind %q (want %s, %s, %s, %s or %s)", in.Kind,
			SpotInterruption, RebalanceRecommendation, ScheduledChange, StateChange, CapacityReservationInterruption)
	}
	e.advance()
	return nil
}

// changeState moves inst towards state through the states EC2 passes on the way.
func (e *Emulator) changeState(inst *instance, state string, now time.Time) error {
	switch state {
	case StateStopping, StateStopped:
		if inst.State != StatePending && inst.State != StateRunning && inst.State != StateStopping {
			return fmt.Errorf("interrupt state-change: instance %q is %s and cannot stop", inst.ID, inst.State)
		}
		if inst.State != StateStopping {
			e.beginStop(inst, now)
		}
	case StateShuttingDown, StateTerminated:
		if inst.State == StateTerminated || inst.State == StateShuttingDown && state == StateShuttingDown {
			return fmt.Errorf("interrupt state-change: instance %q is already %s", inst.ID, inst.State)
		}
		if inst.State != StateShuttingDown {
			e.beginShutdown(inst, now, reasonUserShutdown)
		}
	default:
		return fmt.Errorf("interrupt state-change: state %q: want stopping, stopped, shutting-down or terminated", state)
	}
	if state == StateStopped || state == StateTerminated {
		inst.settleAt = now
		e.reschedule(inst)
	}
	return nil
}

func (e *Emulator) instanceArn(inst *instance) string {
	return "arn:aws:ec2:" + e.cfg.Region + ":" + e.cfg.AccountID + ":instance/" + inst.ID
}

// publishStateChange sends "EC2 Instance State-change Notification" for inst's state, for the
// states Karpenter's rule routes to the queue: stopping, stopped, shutting-down, terminated.
func (e *Emulator) publishStateChange(inst *instance, at time.Time) {
	e.publish("EC2 Instance State-change Notification", "aws.ec2", []string{e.instanceArn(inst)},
		stateChangeDetail{InstanceID: inst.ID, State: inst.State}, at)
}

func (e *Emulator) publishHealth(inst *instance, now time.Time) {
	start := now.Add(14 * 24 * time.Hour).UTC()
	code := "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED"
	id := e.newUUID()
	e.publish("AWS Health Event", "aws.health", []string{inst.ID}, healthDetail{
		EventArn: "arn:aws:health:" + e.cfg.Region + "::event/EC2/" + code + "/" + code + "_" + id,
		Service:  "EC2", EventScopeCode: "ACCOUNT_SPECIFIC", EventTypeCode: code, EventTypeCategory: "scheduledChange",
		EventRegion: e.cfg.Region, StartTime: start.Format(http.TimeFormat), EndTime: start.Add(7 * 24 * time.Hour).Format(http.TimeFormat),
		StatusCode: "upcoming",
		EventDescription: []healthDescription{{Language: "en_US", LatestDescription: "EC2 has detected degradation of the underlying hardware hosting your Amazon EC2 instance " +
			inst.ID + " in the " + e.cfg.Region + " region. Due to this degradation your instance could already be unreachable. (synthetic event from the nodepilot emulator)"}},
		AffectedEntities: []healthEntity{{EntityValue: inst.ID}},
	}, now)
}

// publish delivers one EventBridge event into the interruption queue, sent at at. The caller
// holds e.mu.
func (e *Emulator) publish(detailType, source string, resources []string, detail any, at time.Time) {
	q := e.queues[e.cfg.QueueName]
	if q == nil {
		return
	}
	ev := eventBridgeEvent{Version: "0", ID: e.newUUID(), DetailType: detailType, Source: source, Account: e.cfg.AccountID,
		Time: at.UTC().Format(time.RFC3339), Region: e.cfg.Region, Resources: resources, Detail: detail}
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	q.send(e.newUUID(), string(b), "AIDAEVENTBRIDGE", at, 0)
	e.broadcast()
}
