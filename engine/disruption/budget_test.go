package disruption

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// counts are a NodePool's nodes by their state, for budgets.
type counts struct{ ready, marked, notReady, uninitialized, terminating int }

// TestAllowanceFor checks budgets against nodes counted as Karpenter counts them
// (BuildDisruptionBudgetMapping): initialized nodes only, not those whose instance is
// terminating, and a node not Ready as one disrupting.
func TestAllowanceFor(t *testing.T) {
	// Wednesday 2026-01-07 10:00 UTC: inside a weekday 09:00 + 8h window.
	now := time.Date(2026, 1, 7, 10, 0, 0, 0, time.UTC)
	nodes := func(c counts) []*state.Node {
		var out []*state.Node
		add := func(n int, initialized, ready, marked, terminating bool) {
			for range n {
				nc := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "nc", Labels: map[string]string{karpv1.NodePoolLabelKey: "np"}}}
				if initialized {
					nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue})
				}
				if terminating {
					nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeInstanceTerminating, Status: metav1.ConditionTrue})
				}
				readiness := corev1.ConditionFalse
				if ready {
					readiness = corev1.ConditionTrue
				}
				node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: nc.Labels}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: readiness}}}}
				out = append(out, &state.Node{Node: node, NodeClaim: nc, MarkedForDeletion: marked})
			}
		}
		add(c.ready, true, true, false, false)
		add(c.marked, true, true, true, false)
		add(c.notReady, true, false, false, false)
		add(c.uninitialized, false, false, false, false)
		add(c.terminating, true, true, true, true)
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
		name    string
		budgets []karpv1.Budget
		nodes   counts
		reason  karpv1.DisruptionReason
		want    int
	}{
		{"10% of 15 rounds up to 2", []karpv1.Budget{budget("10%", "", 0)}, counts{ready: 15}, karpv1.DisruptionReasonUnderutilized, 2},
		{"minus disrupting", []karpv1.Budget{budget("3", "", 0)}, counts{ready: 13, marked: 2}, karpv1.DisruptionReasonEmpty, 1},
		{"never below zero", []karpv1.Budget{budget("1", "", 0)}, counts{ready: 11, marked: 4}, karpv1.DisruptionReasonEmpty, 0},
		{"a node not Ready counts as disrupting", []karpv1.Budget{budget("3", "", 0)}, counts{ready: 13, marked: 1, notReady: 1}, karpv1.DisruptionReasonEmpty, 1},
		// 10% of 11 would round up to 2: nodes still being launched do not count.
		{"nodes not initialized do not count", []karpv1.Budget{budget("10%", "", 0)}, counts{ready: 10, uninitialized: 5}, karpv1.DisruptionReasonEmpty, 1},
		{"nodes whose instance is terminating do not count", []karpv1.Budget{budget("10%", "", 0)}, counts{ready: 10, terminating: 3}, karpv1.DisruptionReasonEmpty, 1},
		{"zero during the window", []karpv1.Budget{budget("10%", "", 0), budget("0", "0 9 * * 1-5", 8*time.Hour)}, counts{ready: 10}, karpv1.DisruptionReasonUnderutilized, 0},
		{"window closed", []karpv1.Budget{budget("10%", "", 0), budget("0", "0 9 * * 1-5", 30*time.Minute)}, counts{ready: 10}, karpv1.DisruptionReasonUnderutilized, 1},
		{"budget for another reason", []karpv1.Budget{budget("0", "", 0, karpv1.DisruptionReasonDrifted)}, counts{ready: 10}, karpv1.DisruptionReasonEmpty, 2147483647},
		{"malformed schedule allows nothing", []karpv1.Budget{budget("5", "not a cron", time.Hour)}, counts{ready: 10}, karpv1.DisruptionReasonEmpty, 0},
		{"malformed nodes allows nothing", []karpv1.Budget{budget("five", "", 0)}, counts{ready: 10}, karpv1.DisruptionReasonEmpty, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "np"}, Spec: karpv1.NodePoolSpec{Disruption: karpv1.Disruption{Budgets: tt.budgets}}}
			a := AllowanceFor(np, nodes(tt.nodes), tt.reason, now)
			if a.Allowed != tt.want {
				t.Errorf("allowed %d, want %d (%s)", a.Allowed, tt.want, a)
			}
		})
	}
}
