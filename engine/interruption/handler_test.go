package interruption

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// TestEventReason holds each interruption to the event Karpenter's AWS provider records for it
// (pkg/controllers/interruption/events): the same reason and type, a state change telling a stop
// from a termination by the instance's state.
func TestEventReason(t *testing.T) {
	for _, tc := range []struct {
		kind    cloudprovider.InterruptionKind
		detail  string
		reason  string
		warning bool
	}{
		{cloudprovider.SpotInterruption, "", "SpotInterrupted", true},
		{cloudprovider.RebalanceRecommendation, "", "SpotRebalanceRecommendation", false},
		{cloudprovider.ScheduledChange, "", "InstanceUnhealthy", true},
		{cloudprovider.CapacityReservationInterruption, "", "CapacityReservationInstanceInterrupted", true},
		{cloudprovider.StateChange, "stopping", "InstanceStopping", true},
		{cloudprovider.StateChange, "stopped", "InstanceStopping", true},
		{cloudprovider.StateChange, "shutting-down", "InstanceTerminating", true},
		{cloudprovider.StateChange, "terminated", "InstanceTerminating", true},
	} {
		t.Run(string(tc.kind)+"/"+tc.detail, func(t *testing.T) {
			reason, typ := EventReason(tc.kind, tc.detail)
			want := corev1.EventTypeNormal
			if tc.warning {
				want = corev1.EventTypeWarning
			}
			if string(reason) != tc.reason || typ != want {
				t.Errorf("EventReason(%s, %q) = %s %s, want %s %s", tc.kind, tc.detail, typ, reason, want, tc.reason)
			}
		})
	}
}

// TestDeadlineText: an announced deadline is shown in UTC whatever the event's zone; an event
// without one (a state change) says the instance goes now.
func TestDeadlineText(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		name     string
		deadline time.Time
		want     string
	}{
		{"none", time.Time{}, "the instance goes"},
		{"UTC", time.Date(2026, 12, 5, 10, 4, 5, 0, time.UTC), "10:04:05 UTC"},
		{"another zone", time.Date(2026, 12, 5, 19, 4, 5, 0, tokyo), "10:04:05 UTC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := deadlineText(cloudprovider.Interruption{Deadline: tc.deadline}); got != tc.want {
				t.Errorf("deadlineText = %q, want %q", got, tc.want)
			}
		})
	}
}
