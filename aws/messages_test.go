package aws

import (
	"fmt"
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

// FuzzParseMessage proves the queue message parser never panics and never returns an event
// without an instance id.
func FuzzParseMessage(f *testing.F) {
	f.Add(eventBody(sourceEC2, detailSpotInterruption, `{"instance-id":"i-0abc","instance-action":"terminate"}`))
	f.Add(eventBody(sourceEC2, detailStateChange, `{"instance-id":"i-0abc","state":"terminated"}`))
	f.Add(eventBody(sourceHealth, detailHealth, `{"service":"EC2","eventTypeCategory":"scheduledChange","affectedEntities":[{"entityValue":"i-01"}]}`))
	f.Add(`{"source":"aws.ec2","detail-type":"EC2 Instance Rebalance Recommendation","detail":null}`)
	f.Add(`not json`)
	f.Fuzz(func(t *testing.T, body string) {
		events, err := ParseMessage(body)
		if err != nil && len(events) > 0 {
			t.Fatalf("events %v with error %v", events, err)
		}
		for _, e := range events {
			if !isInstanceID(e.InstanceID) {
				t.Fatalf("event %+v without an instance id", e)
			}
		}
	})
}
