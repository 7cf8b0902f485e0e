package cloudprovider

import "testing"

// TestMessageType: interruption kinds in the words of Karpenter's AWS provider, a state change
// split by the state it reached.
func TestMessageType(t *testing.T) {
	for _, tc := range []struct {
		kind   InterruptionKind
		detail string
		want   string
	}{
		{SpotInterruption, "terminate", "spot_interrupted"},
		{RebalanceRecommendation, "", "rebalance_recommendation"},
		{ScheduledChange, "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED", "scheduled_change"},
		{CapacityReservationInterruption, "", "capacity_reservation_interrupted"},
		{StateChange, "stopping", "instance_stopped"},
		{StateChange, "stopped", "instance_stopped"},
		{StateChange, "shutting-down", "instance_terminated"},
		{StateChange, "terminated", "instance_terminated"},
		{"Unknown", "", "no_op"},
	} {
		if got := (Interruption{Kind: tc.kind, Detail: tc.detail}).MessageType(); got != tc.want {
			t.Errorf("%s %q: %s, want %s", tc.kind, tc.detail, got, tc.want)
		}
	}
}
