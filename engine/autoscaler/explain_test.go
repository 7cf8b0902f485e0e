package autoscaler_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

func TestExplainPod(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default")
	h.Deployment("web", 1, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	opts := autoscaler.DefaultOptions().Provisioning
	for _, tc := range []struct {
		name   string
		pod    *corev1.Pod
		reason string // "" when the pod fits
	}{
		{name: "a pod that fits beside web", pod: h.PodsOf("web")[0]},
		{name: "a pod larger than every type", pod: podOf("huge", enginetest.Resources("1000", "")), reason: scheduling.ReasonInsufficientResources},
		{name: "a pod asking for a zone nothing offers", pod: podOf("lost", enginetest.Resources("1", ""),
			enginetest.WithNodeSelector(map[string]string{corev1.LabelTopologyZone: "mars-1a"})), reason: scheduling.ReasonRequirementConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe := provisioning.ExplainPod(t.Context(), h.Cloud, h.Cluster.Snapshot(), tc.pod, opts)
			switch {
			case tc.reason == "" && pe != nil:
				t.Errorf("explained as unschedulable: %+v", pe.Reasons)
			case tc.reason != "" && (pe == nil || len(pe.Reasons) == 0):
				t.Errorf("explained as fitting, want %s", tc.reason)
			case tc.reason != "" && pe.Reasons[0].Code != tc.reason:
				t.Errorf("reason %s (%s), want %s", pe.Reasons[0].Code, pe.Reasons[0].Message, tc.reason)
			}
		})
	}
}

// TestExplainPodNamesAMissingNodeClass: the live explain of a pod whose only NodePool references
// an EC2NodeClass that does not exist names both and the fix, instead of a generic reason.
func TestExplainPodNamesAMissingNodeClass(t *testing.T) {
	h := newHarness(t)
	h.NodePool("orphan", func(np *karpv1.NodePool) { np.Spec.Template.Spec.NodeClassRef.Name = "gone" })
	h.Advance(time.Minute, time.Second)
	pe := provisioning.ExplainPod(t.Context(), h.Cloud, h.Cluster.Snapshot(), podOf("web", enginetest.Resources("1", "")),
		autoscaler.DefaultOptions().Provisioning)
	if pe == nil || len(pe.Reasons) != 1 {
		t.Fatalf("explained as %+v, want one reason", pe)
	}
	r := pe.Reasons[0]
	if r.Code != scheduling.ReasonNodeClassNotFound || r.NodePool != "orphan" ||
		!strings.Contains(r.Message, `NodePool "orphan" references EC2NodeClass "gone", which does not exist`) ||
		!strings.Contains(r.Hint, `create EC2NodeClass "gone"`) {
		t.Errorf("reason %+v", r)
	}
}

// podOf is a pending pod that was never created: explaining one changes nothing.
func podOf(name string, requests corev1.ResourceList, opts ...enginetest.PodOption) *corev1.Pod {
	p := &corev1.Pod{}
	p.Name, p.Namespace = name, "default"
	p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func TestSimulateOneNode(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour))
	h.Deployment("big", 1, enginetest.Resources("6", ""), enginetest.OnePerNode())
	h.Deployment("small", 1, enginetest.Resources("500m", ""))
	// pinned runs alone on a tainted NodePool of its own.
	h.NodePool("pinned", consolidateAfter(time.Hour), templateLabels("pool", "pinned"), taint("pinned", "true"))
	h.Deployment("pinned", 1, enginetest.Resources("1", ""), enginetest.DoNotDisrupt("true"),
		enginetest.WithNodeSelector(map[string]string{"pool": "pinned"}),
		enginetest.WithTolerations(corev1.Toleration{Key: "pinned", Operator: corev1.TolerationOpExists}))
	h.Advance(time.Minute, time.Second)
	h.Scale("big", 0)
	h.Advance(time.Minute, time.Second)
	before := len(h.API.NodeClaims())
	opts := autoscaler.DefaultOptions().Disruption
	for _, tc := range []struct {
		name, node, method string
		reason             journal.Reason
		order              string
	}{
		{name: "a pod annotated do-not-disrupt blocks it", node: h.nodeOf(t, "pinned"), reason: disruption.BlockedDoNotDisrupt},
		{name: "the node left with a small pod is replaced by a cheaper one, consolidateAfter aside", node: h.nodeOf(t, "small"),
			method: disruption.MethodSingleNode,
			// the only candidate: the pinned node is none
			order: "1 of 1 candidates: its type is among the NodePool's best value for its pods: Karpenter's order, cheapest to disrupt first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim, err := disruption.Simulate(t.Context(), h.Cloud, h.Cluster.Snapshot(), tc.node, opts, h.Now(), nil)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.reason != "" && sim.Reason != tc.reason:
				t.Errorf("reason %q (%s), want %q", sim.Reason, sim.Message, tc.reason)
			case tc.method != "" && (sim.Command == nil || sim.Command.Method != tc.method || sim.Command.Savings() <= 0):
				t.Errorf("simulation %+v (%s), want a saving %s", sim.Command, sim.Message, tc.method)
			case sim.Order != tc.order:
				t.Errorf("order %q, want %q", sim.Order, tc.order)
			}
		})
	}
	if _, err := disruption.Simulate(t.Context(), h.Cloud, h.Cluster.Snapshot(), "no-such-node", opts, h.Now(), nil); err == nil {
		t.Error("simulating a node that does not exist is not an error")
	}
	if after := len(h.API.NodeClaims()); after != before || len(h.decisions(false)) != 0 {
		t.Errorf("simulating changed the cluster: %d nodeclaims before, %d after, %d decisions", before, after, len(h.decisions(false)))
	}
	emptied := h.nodeOf(t, "small")
	h.Scale("small", 0)
	h.Advance(time.Minute, time.Second) // consolidateAfter (an hour) keeps the empty node
	sim, err := disruption.Simulate(t.Context(), h.Cloud, h.Cluster.Snapshot(), emptied, opts, h.Now(), nil)
	if err != nil || sim.Command == nil || sim.Command.Method != disruption.MethodEmptiness || sim.Command.PriceBefore <= 0 {
		t.Errorf("an empty node: simulation %+v, %v; want it deleted, saving its price", sim, err)
	}
}
