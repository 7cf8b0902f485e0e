package disruption

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

func TestAllowanceFor(t *testing.T) {
	// Wednesday 2026-01-07 10:00 UTC: inside a weekday 09:00 + 8h window.
	now := time.Date(2026, 1, 7, 10, 0, 0, 0, time.UTC)
	nodes := func(total, disrupting int) []*state.Node {
		var out []*state.Node
		for i := range total {
			out = append(out, &state.Node{NodeClaim: &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{
				Name: "nc", Labels: map[string]string{karpv1.NodePoolLabelKey: "np"}}}, MarkedForDeletion: i < disrupting})
		}
		return out
	}
	budget := func(n string, schedule string, d time.Duration, reasons ...karpv1.DisruptionReason) karpv1.Budget {
		b := karpv1.Budget{Nodes: n, Reasons: reasons}
		if schedule != "" {
			b.Schedule, b.Duration = ptr.To(schedule), &metav1.Duration{Duration: d}
		}
		return b
	}
	tests := []struct {
		name        string
		budgets     []karpv1.Budget
		total, busy int
		reason      karpv1.DisruptionReason
		want        int
	}{
		{"10% of 15 rounds up to 2", []karpv1.Budget{budget("10%", "", 0)}, 15, 0, karpv1.DisruptionReasonUnderutilized, 2},
		{"minus disrupting", []karpv1.Budget{budget("3", "", 0)}, 15, 2, karpv1.DisruptionReasonEmpty, 1},
		{"never below zero", []karpv1.Budget{budget("1", "", 0)}, 15, 4, karpv1.DisruptionReasonEmpty, 0},
		{"zero during the window", []karpv1.Budget{budget("10%", "", 0), budget("0", "0 9 * * 1-5", 8*time.Hour)}, 10, 0, karpv1.DisruptionReasonUnderutilized, 0},
		{"window closed", []karpv1.Budget{budget("10%", "", 0), budget("0", "0 9 * * 1-5", 30*time.Minute)}, 10, 0, karpv1.DisruptionReasonUnderutilized, 1},
		{"budget for another reason", []karpv1.Budget{budget("0", "", 0, karpv1.DisruptionReasonDrifted)}, 10, 0, karpv1.DisruptionReasonEmpty, 2147483647},
		{"malformed schedule allows nothing", []karpv1.Budget{budget("5", "not a cron", time.Hour)}, 10, 0, karpv1.DisruptionReasonEmpty, 0},
		{"malformed nodes allows nothing", []karpv1.Budget{budget("five", "", 0)}, 10, 0, karpv1.DisruptionReasonEmpty, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "np"}, Spec: karpv1.NodePoolSpec{Disruption: karpv1.Disruption{Budgets: tt.budgets}}}
			a := AllowanceFor(np, nodes(tt.total, tt.busy), tt.reason, now)
			if a.Allowed != tt.want {
				t.Errorf("allowed %d, want %d (%s)", a.Allowed, tt.want, a)
			}
		})
	}
}
