package disruption

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

func TestBalancedVerdict(t *testing.T) {
	pool := func(name string, policy karpv1.ConsolidationPolicy) *karpv1.NodePool {
		np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
		np.Spec.Disruption.ConsolidationPolicy = policy
		return np
	}
	balanced, greedy := pool("balanced", karpv1.ConsolidationPolicyBalanced), pool("greedy", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized)
	podsOf := func(n int) []*corev1.Pod {
		out := make([]*corev1.Pod, n)
		for i := range out {
			out[i] = &corev1.Pod{}
		}
		return out
	}
	// Each balanced pool below costs $1/h in all and 8 to disrupt in all.
	totals := map[string]poolTotals{"balanced": {cost: 1, disruption: 8}}
	tests := []struct {
		name        string
		cands       []*Candidate
		priceAfter  float64
		wantBlocked bool
	}{
		// one node with 3 pods: disruption 1+3 = 4, half the pool's
		{"saves half the cost for half the disruption", []*Candidate{{NodePool: balanced, Price: 0.5, Reschedulable: podsOf(3)}}, 0, false},
		{"saves a quarter for half: at the bar", []*Candidate{{NodePool: balanced, Price: 0.5, Reschedulable: podsOf(3)}}, 0.25, false},
		{"saves a tenth for half", []*Candidate{{NodePool: balanced, Price: 0.5, Reschedulable: podsOf(3)}}, 0.4, true},
		{"saves nothing", []*Candidate{{NodePool: balanced, Price: 0.5, Reschedulable: podsOf(3)}}, 0.5, true},
		{"another policy is not held to the bar", []*Candidate{{NodePool: greedy, Price: 0.5, Reschedulable: podsOf(3)}}, 0.45, false},
		// two pools: the balanced one is credited with its share of the price (0.2 of 1.0),
		// so with 0.5 saved it gets 0.1 (10% of its cost) for 2/8 of its disruption: 0.4
		{"a shared move credits each pool its share", []*Candidate{
			{NodePool: balanced, Price: 0.2, Reschedulable: podsOf(1)},
			{NodePool: greedy, Price: 0.8, Reschedulable: podsOf(5)},
		}, 0.5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := &Command{Candidates: tt.cands, PriceAfter: tt.priceAfter}
			for _, c := range tt.cands {
				cmd.PriceBefore += c.Price
			}
			why, _ := (&pass{totals: totals}).balancedVerdict(cmd)
			if (why != "") != tt.wantBlocked {
				t.Fatalf("verdict %q, want blocked = %v", why, tt.wantBlocked)
			}
			if tt.wantBlocked && !strings.Contains(why, `nodepool "balanced" is Balanced`) {
				t.Errorf("verdict %q does not name the nodepool", why)
			}
		})
	}
}
