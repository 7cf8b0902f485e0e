package aws

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// eventBody writes an EventBridge event as it arrives in the interruption queue.
func eventBody(source, detailType, detail string) string {
	return fmt.Sprintf(`{"version":"0","id":"7bf73129-1428-4cd3-a780-95db273d1602","detail-type":%q,"source":%q,`+
		`"account":"123456789012","time":"2026-12-02T10:00:00Z","region":"us-east-1","resources":[],"detail":%s}`, detailType, source, detail)
}

func TestParseMessage(t *testing.T) {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		body    string
		want    []cloudprovider.Interruption
		wantErr string
	}{
		{"spot interruption", eventBody(sourceEC2, detailSpotInterruption, `{"instance-id":"i-0abc","instance-action":"terminate"}`),
			[]cloudprovider.Interruption{{Kind: cloudprovider.SpotInterruption, InstanceID: "i-0abc", Detail: "terminate", At: at, Deadline: at.Add(2 * time.Minute), Drain: true}}, ""},
		{"rebalance is a notice", eventBody(sourceEC2, detailRebalanceRecommendation, `{"instance-id":"i-0abc"}`),
			[]cloudprovider.Interruption{{Kind: cloudprovider.RebalanceRecommendation, InstanceID: "i-0abc", At: at}}, ""},
		{"stopping", eventBody(sourceEC2, detailStateChange, `{"instance-id":"i-0abc","state":"stopping"}`),
			[]cloudprovider.Interruption{{Kind: cloudprovider.StateChange, InstanceID: "i-0abc", Detail: "stopping", At: at, Drain: true}}, ""},
		{"running needs nothing", eventBody(sourceEC2, detailStateChange, `{"instance-id":"i-0abc","state":"running"}`), nil, ""},
		{"capacity reservation", eventBody(sourceEC2, detailCapacityReservation, `{"instance-id":"i-0abc","instance-action":"terminate"}`),
			[]cloudprovider.Interruption{{Kind: cloudprovider.CapacityReservationInterruption, InstanceID: "i-0abc", Detail: "terminate", At: at, Drain: true}}, ""},
		{"scheduled change of two instances", eventBody(sourceHealth, detailHealth, `{"service":"EC2","eventTypeCategory":"scheduledChange",`+
			`"eventTypeCode":"AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED","startTime":"Sat, 05 Dec 2026 10:00:00 GMT",`+
			`"eventDescription":[{"latestDescription":"retiring"}],"affectedEntities":[{"entityValue":"i-01"},{"entityValue":"i-02"}]}`),
			[]cloudprovider.Interruption{
				{Kind: cloudprovider.ScheduledChange, InstanceID: "i-01", Detail: "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED: retiring", At: at, Deadline: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC), Drain: true},
				{Kind: cloudprovider.ScheduledChange, InstanceID: "i-02", Detail: "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED: retiring", At: at, Deadline: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC), Drain: true},
			}, ""},
		{"health issue that is not a scheduled change", eventBody(sourceHealth, detailHealth, `{"service":"EC2","eventTypeCategory":"issue","affectedEntities":[{"entityValue":"i-01"}]}`), nil, ""},
		{"other source", eventBody("aws.s3", "Object Created", `{}`), nil, ""},
		{"not json", `hello`, nil, "not an EventBridge event"},
		{"not an event", `{"a":1}`, nil, "no source or detail-type"},
		{"bad instance id", eventBody(sourceEC2, detailSpotInterruption, `{"instance-id":"web-1"}`), nil, "is not an instance id"},
		{"detail of the wrong shape", eventBody(sourceEC2, detailSpotInterruption, `[1,2]`), nil, "detail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMessage(tt.body)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseMessage checks the queue message parser against the envelope it was given: the kind
// of each event follows from the source and detail-type, every event names an instance, a spot
// warning's deadline is two minutes after it, a rebalance recommendation does not drain, a
// state change is one that ends the instance, and a body that is not an event is an error.
func FuzzParseMessage(f *testing.F) {
	f.Add(eventBody(sourceEC2, detailSpotInterruption, `{"instance-id":"i-0abc","instance-action":"terminate"}`))
	f.Add(eventBody(sourceEC2, detailRebalanceRecommendation, `{"instance-id":"i-0abc"}`))
	f.Add(eventBody(sourceEC2, detailStateChange, `{"instance-id":"i-0abc","state":"terminated"}`))
	f.Add(eventBody(sourceEC2, detailStateChange, `{"instance-id":"i-0abc","state":"running"}`))
	f.Add(eventBody(sourceEC2, detailCapacityReservation, `{"instance-id":"i-0abc","instance-action":"terminate"}`))
	f.Add(eventBody(sourceHealth, detailHealth, `{"service":"EC2","eventTypeCategory":"scheduledChange","startTime":"Sat, 05 Jun 2021 10:00:00 GMT","affectedEntities":[{"entityValue":"i-01"},{"entityValue":"vol-1"}]}`))
	f.Add(`{"source":"aws.ec2","detail-type":"EC2 Instance Rebalance Recommendation","detail":null}`)
	f.Add(`not json`)
	want := map[string]cloudprovider.InterruptionKind{
		sourceEC2 + "/" + detailSpotInterruption:        cloudprovider.SpotInterruption,
		sourceEC2 + "/" + detailRebalanceRecommendation: cloudprovider.RebalanceRecommendation,
		sourceEC2 + "/" + detailStateChange:             cloudprovider.StateChange,
		sourceEC2 + "/" + detailCapacityReservation:     cloudprovider.CapacityReservationInterruption,
		sourceHealth + "/" + detailHealth:               cloudprovider.ScheduledChange,
	}
	f.Fuzz(func(t *testing.T, body string) {
		events, err := ParseMessage(body)
		var envelope struct {
			Source     string `json:"source"`
			DetailType string `json:"detail-type"`
		}
		if json.Unmarshal([]byte(body), &envelope) != nil || envelope.Source == "" || envelope.DetailType == "" {
			if err == nil {
				t.Fatalf("%q is not an event, and parsed as %v", body, events)
			}
			return
		}
		if err != nil && len(events) > 0 {
			t.Fatalf("events %v with error %v", events, err)
		}
		for _, e := range events {
			if kind, ok := want[envelope.Source+"/"+envelope.DetailType]; !ok || e.Kind != kind {
				t.Fatalf("%s/%s gave a %v event", envelope.Source, envelope.DetailType, e.Kind)
			}
			if !isInstanceID(e.InstanceID) {
				t.Fatalf("event %+v without an instance id", e)
			}
			switch e.Kind {
			case cloudprovider.SpotInterruption:
				if !e.At.IsZero() && !e.Deadline.Equal(e.At.Add(spotWarning)) || !e.Drain {
					t.Fatalf("spot warning %+v: deadline not two minutes on, or no drain", e)
				}
			case cloudprovider.RebalanceRecommendation:
				if e.Drain {
					t.Fatalf("rebalance recommendation %+v drains", e)
				}
			case cloudprovider.StateChange:
				if !slices.Contains([]string{"stopping", "stopped", "shutting-down", "terminated"}, e.Detail) || !e.Drain {
					t.Fatalf("state change %+v that does not end the instance", e)
				}
			}
		}
	})
}
