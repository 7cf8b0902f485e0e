package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/nodepilot/nodepilot/internal/eventually"
)

// event is an EventBridge message as Karpenter's parsers read it.
type event struct {
	Version    string          `json:"version"`
	ID         string          `json:"id"`
	DetailType string          `json:"detail-type"`
	Source     string          `json:"source"`
	Account    string          `json:"account"`
	Time       string          `json:"time"`
	Region     string          `json:"region"`
	Resources  []string        `json:"resources"`
	Detail     json.RawMessage `json:"detail"`
}

type eventDetail struct {
	InstanceID        string `json:"instance-id"`
	InstanceAction    string `json:"instance-action"`
	State             string `json:"state"`
	Service           string `json:"service"`
	EventTypeCategory string `json:"eventTypeCategory"`
	EventTypeCode     string `json:"eventTypeCode"`
	EventArn          string `json:"eventArn"`
	StartTime         string `json:"startTime"`
	AffectedEntities  []struct {
		EntityValue string `json:"entityValue"`
	} `json:"affectedEntities"`
	EventDescription []struct {
		Language          string `json:"language"`
		LatestDescription string `json:"latestDescription"`
	} `json:"eventDescription"`
}

// drain receives and deletes every visible message and returns the events.
func drain(t *testing.T, e *Emulator, c clients) []event {
	t.Helper()
	var out []event
	for {
		r, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String(e.QueueURL()), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Messages) == 0 {
			return out
		}
		for _, m := range r.Messages {
			var ev event
			if err := json.Unmarshal([]byte(*m.Body), &ev); err != nil {
				t.Fatalf("message %s: %v", *m.Body, err)
			}
			out = append(out, ev)
			if _, err := c.sqs.DeleteMessage(ctx(t), &sqs.DeleteMessageInput{QueueUrl: aws.String(e.QueueURL()), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func checkEnvelope(t *testing.T, ev event, detailType, source string) eventDetail {
	t.Helper()
	if ev.Version != "0" || ev.DetailType != detailType || ev.Source != source || ev.Account != "123456789012" || ev.Region != "us-east-1" || ev.ID == "" || len(ev.Resources) != 1 {
		t.Errorf("envelope %+v, want %s from %s", ev, detailType, source)
	}
	if _, err := time.Parse(time.RFC3339, ev.Time); err != nil {
		t.Errorf("time %q: %v", ev.Time, err)
	}
	var d eventDetail
	if err := json.Unmarshal(ev.Detail, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestInterruptions(t *testing.T) {
	tests := []struct {
		name     string
		capacity types.DefaultTargetCapacityType
		in       func(id string) Interruption
		// check looks at the events right after the injection, then after two minutes.
		now, later []string // detail-type:state
		finalState string
		check      func(t *testing.T, ev event, id string)
	}{
		{
			name: "spot interruption", capacity: types.DefaultTargetCapacityTypeSpot,
			in:  func(id string) Interruption { return Interruption{Kind: SpotInterruption, InstanceID: id} },
			now: []string{"EC2 Spot Instance Interruption Warning:"}, later: []string{"EC2 Instance State-change Notification:shutting-down", "EC2 Instance State-change Notification:terminated"},
			finalState: StateTerminated,
			check: func(t *testing.T, ev event, id string) {
				d := checkEnvelope(t, ev, "EC2 Spot Instance Interruption Warning", "aws.ec2")
				if d.InstanceID != id || d.InstanceAction != "terminate" || ev.Resources[0] != "arn:aws:ec2:us-east-1:123456789012:instance/"+id {
					t.Errorf("detail %+v resources %v", d, ev.Resources)
				}
			},
		},
		{
			name: "capacity reservation interruption", capacity: types.DefaultTargetCapacityTypeOnDemand,
			in: func(id string) Interruption {
				return Interruption{Kind: CapacityReservationInterruption, InstanceID: id}
			},
			now: []string{"EC2 Capacity Reservation Instance Interruption Warning:"}, later: []string{"EC2 Instance State-change Notification:shutting-down", "EC2 Instance State-change Notification:terminated"},
			finalState: StateTerminated,
			check: func(t *testing.T, ev event, id string) {
				d := checkEnvelope(t, ev, "EC2 Capacity Reservation Instance Interruption Warning", "aws.ec2")
				if d.InstanceID != id || d.InstanceAction != "terminate" {
					t.Errorf("detail %+v", d)
				}
			},
		},
		{
			name: "rebalance recommendation", capacity: types.DefaultTargetCapacityTypeSpot,
			in:  func(id string) Interruption { return Interruption{Kind: RebalanceRecommendation, InstanceID: id} },
			now: []string{"EC2 Instance Rebalance Recommendation:"}, finalState: StateRunning,
			check: func(t *testing.T, ev event, id string) {
				if d := checkEnvelope(t, ev, "EC2 Instance Rebalance Recommendation", "aws.ec2"); d.InstanceID != id {
					t.Errorf("detail %+v", d)
				}
			},
		},
		{
			name: "scheduled change", capacity: types.DefaultTargetCapacityTypeOnDemand,
			in:  func(id string) Interruption { return Interruption{Kind: ScheduledChange, InstanceID: id} },
			now: []string{"AWS Health Event:"}, finalState: StateRunning,
			check: func(t *testing.T, ev event, id string) {
				d := checkEnvelope(t, ev, "AWS Health Event", "aws.health")
				if d.Service != "EC2" || d.EventTypeCategory != "scheduledChange" || len(d.AffectedEntities) != 1 || d.AffectedEntities[0].EntityValue != id ||
					!strings.HasPrefix(d.EventArn, "arn:aws:health:us-east-1::event/EC2/") || d.EventTypeCode == "" || len(d.EventDescription) != 1 {
					t.Errorf("detail %+v", d)
				}
				if _, err := time.Parse(http.TimeFormat, d.StartTime); err != nil {
					t.Errorf("start time %q: %v", d.StartTime, err)
				}
			},
		},
		{
			name: "stopped", capacity: types.DefaultTargetCapacityTypeOnDemand,
			in:  func(id string) Interruption { return Interruption{Kind: StateChange, InstanceID: id, State: "stopped"} },
			now: []string{"EC2 Instance State-change Notification:stopping", "EC2 Instance State-change Notification:stopped"}, finalState: StateStopped,
			check: func(t *testing.T, ev event, id string) {
				if d := checkEnvelope(t, ev, "EC2 Instance State-change Notification", "aws.ec2"); d.InstanceID != id || d.State != "stopping" {
					t.Errorf("detail %+v", d)
				}
			},
		},
		{
			name: "stopping", capacity: types.DefaultTargetCapacityTypeOnDemand,
			in: func(id string) Interruption {
				return Interruption{Kind: StateChange, InstanceID: id, State: "stopping"}
			},
			now: []string{"EC2 Instance State-change Notification:stopping"}, later: []string{"EC2 Instance State-change Notification:stopped"}, finalState: StateStopped,
		},
		{
			name: "terminated", capacity: types.DefaultTargetCapacityTypeSpot,
			in: func(id string) Interruption {
				return Interruption{Kind: StateChange, InstanceID: id, State: "terminated"}
			},
			now: []string{"EC2 Instance State-change Notification:shutting-down", "EC2 Instance State-change Notification:terminated"}, finalState: StateTerminated,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, step := newFleetWorld(t, Config{ShutdownDelay: 10 * time.Second})
			id := w.launch(t, tt.capacity, "m5.large")
			if err := w.e.Interrupt(tt.in(id)); err != nil {
				t.Fatal(err)
			}
			events := drain(t, w.e, w.c)
			if got := kinds(events); !equalStrings(got, tt.now) {
				t.Fatalf("events right away %v, want %v", got, tt.now)
			}
			if tt.check != nil {
				tt.check(t, events[0], id)
			}
			step(InterruptionNotice - time.Second)
			if w.e.Instances()[0].State != StateRunning && tt.later != nil && tt.name != "stopping" {
				t.Errorf("state %s a second before the deadline", w.e.Instances()[0].State)
			}
			step(time.Second + 10*time.Second)
			if got := kinds(drain(t, w.e, w.c)); !equalStrings(got, tt.later) {
				t.Errorf("events later %v, want %v", got, tt.later)
			}
			if got := w.e.Instances()[0].State; got != tt.finalState {
				t.Errorf("final state %s, want %s", got, tt.finalState)
			}
		})
	}
}

func kinds(events []event) []string {
	var out []string
	for _, ev := range events {
		var d eventDetail
		_ = json.Unmarshal(ev.Detail, &d)
		out = append(out, ev.DetailType+":"+d.State)
	}
	return out
}

// TestSpotInterruptionTerminatesOnTheClock runs the deadline through the scheduler: nobody calls
// the API while the clock passes the two minutes, yet the state-change events are there.
func TestSpotInterruptionTerminatesOnTheClock(t *testing.T) {
	w, step := newFleetWorld(t, Config{})
	id := w.launch(t, types.DefaultTargetCapacityTypeSpot, "m5.large")
	if err := w.e.Interrupt(Interruption{Kind: SpotInterruption, InstanceID: id}); err != nil {
		t.Fatal(err)
	}
	drain(t, w.e, w.c)
	done := make(chan received, 1)
	go func() {
		out, err := w.c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String(w.e.QueueURL()), WaitTimeSeconds: 20, MaxNumberOfMessages: 10})
		done <- received{out, err}
	}()
	// The scheduler waits for the deadline, the poll for its 20 seconds.
	waitForWaiters(t, w.fakeClock(t), 2)
	step(InterruptionNotice)
	r := eventually.Receive(t, 10*time.Second, "the long poll's answer across the deadline", done)
	if r.err != nil || len(r.out.Messages) == 0 {
		t.Fatalf("poll across the deadline: %v %+v", r.err, r.out)
	}
	if got := w.state(t, id); got != types.InstanceStateNameTerminated {
		t.Errorf("state %s two minutes after the warning, want terminated", got)
	}
}

func TestInterruptRefuses(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	od := w.launch(t, types.DefaultTargetCapacityTypeOnDemand, "m5.large")
	for _, in := range []Interruption{
		{Kind: SpotInterruption, InstanceID: od},
		{Kind: SpotInterruption, InstanceID: "i-0123456789abcdef0"},
		{Kind: "meteor", InstanceID: od},
		{Kind: StateChange, InstanceID: od, State: "exploded"},
	} {
		if err := w.e.Interrupt(in); err == nil {
			t.Errorf("Interrupt(%+v) succeeded", in)
		}
	}
}
