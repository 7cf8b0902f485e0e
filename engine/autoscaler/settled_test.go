package autoscaler_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
)

// A pass that finds no consolidation move is not simulated again while the cluster stays as it
// was, for up to five minutes (Karpenter's consolidation state); status updates that decide
// nothing leave it so; a change, or the five minutes, brings the simulations back.
func TestSettledClusterIsNotSimulatedAgain(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default")
	h.Deployment("web", 2, enginetest.Resources("1500m", "5Gi"))
	h.Advance(2*time.Minute, 10*time.Second)
	multiNode := func() int {
		n := 0
		for _, m := range h.measured.Of(journal.MeasureEvaluation) {
			if m.Method == disruption.MethodMultiNode {
				n++
			}
		}
		return n
	}
	if len(h.decisions(false)) > 0 {
		t.Fatalf("decisions %v, want none: the test needs a fleet with nothing to consolidate", h.decisions(false))
	}
	for _, step := range []struct {
		name      string
		change    func()
		advance   time.Duration
		simulated bool
	}{
		{"nothing changed for two minutes", func() {}, 2 * time.Minute, false},
		{"five minutes since it was simulated", func() {}, 4 * time.Minute, true},
		{"only statuses changed: a container restarted, a node's heartbeat", func() {
			p := h.API.Pods()[0]
			if _, err := h.API.UpdatePodStatus(t.Context(), p.Namespace, p.Name, func(p *corev1.Pod) error {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "app", RestartCount: 1})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := h.API.UpdateNodeStatus(t.Context(), h.managedNodes()[0].Name(), func(n *corev1.Node) error {
				n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: "Heartbeat", Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.NewTime(h.Now())})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}, time.Minute, false},
		{"a pod was added", func() { h.Scale("web", 3) }, 30 * time.Second, true},
	} {
		before := multiNode()
		step.change()
		h.Advance(step.advance, 10*time.Second)
		if got := multiNode() > before; got != step.simulated {
			t.Errorf("%s: multi-node consolidation ran %d times, want simulations %v", step.name, multiNode()-before, step.simulated)
		}
	}
}
