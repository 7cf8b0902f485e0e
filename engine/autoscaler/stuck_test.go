package autoscaler_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
)

// A budget of one node lets single-node consolidation consider one candidate a pass. The
// cheapest to disrupt here is an r5.large node whose pod asks for that type, so it has no cheaper
// one: it must not take that one place on every pass, or the m5 node that a smaller one could
// replace would never be considered (as it was not before stuck candidates went last).
func TestStuckNodeDoesNotHoldTheBudget(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(30*time.Second), budgets(budget("1")))
	h.Deployment("pinned", 1, enginetest.Resources("500m", "10Gi"),
		enginetest.WithNodeSelector(map[string]string{corev1.LabelInstanceTypeStable: "r5.large"}))
	h.Advance(time.Minute, time.Second)
	h.Deployment("web", 8, enginetest.Resources("1500m", "5Gi"))
	h.Advance(time.Minute, time.Second)
	pinned, web := h.nodeOf(t, "pinned"), h.nodeOf(t, "web")
	if pinned == web {
		t.Fatalf("both deployments run on node %s, want a node each", web)
	}
	h.Scale("web", 4)
	h.Advance(5*time.Minute, 10*time.Second)
	var disrupted []string
	for _, d := range h.decisions(false) {
		if d.Method == disruption.MethodSingleNode {
			disrupted = append(disrupted, d.Nodes...)
		}
	}
	if !slices.Contains(disrupted, web) || slices.Contains(disrupted, pinned) {
		t.Errorf("single-node consolidation disrupted %v, want web's node %s and not pinned's %s", disrupted, web, pinned)
	}
	// explain places the node where the controller's next pass would, after the others.
	stuck := h.autoscaler.Disruption.Stuck()
	if _, ok := stuck[pinned]; !ok {
		t.Fatalf("the controller's stuck record %v lacks %s", stuck, pinned)
	}
	for _, tc := range []struct {
		stuck map[string]time.Time
		order string
	}{
		{stuck, "single-node consolidation found no move for it and its pods have not changed since: after the nodes it has not tried"},
		{nil, "its type is among the NodePool's best value for its pods"},
	} {
		sim, err := disruption.Simulate(t.Context(), h.Cloud, h.Cluster.Snapshot(), pinned, autoscaler.DefaultOptions().Disruption, h.Now(), tc.stuck)
		if err != nil || !strings.Contains(sim.Order, tc.order) {
			t.Errorf("explain with the stuck record %v: order %q (%v), want it to say %q", tc.stuck, sim.Order, err, tc.order)
		}
	}
}
