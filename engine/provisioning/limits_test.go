package provisioning

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// TestLimitsCountWhatKarpenterCounts: a NodePool's limits count its nodes as Karpenter's cluster
// state does: a node marked for deletion (a disruption candidate whose replacement launches, or a
// node being deleted) no longer counts, so its replacement fits under a limit the two together
// would break; every other node labelled with the NodePool counts, managed or not.
func TestLimitsCountWhatKarpenterCounts(t *testing.T) {
	cpu := func(n string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(n)}
	}
	running := func(name, pool string) *state.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.NodePoolLabelKey: pool}},
			Status: corev1.NodeStatus{Capacity: cpu("8")}}
		return &state.Node{Node: n}
	}
	marked := running("candidate", "default")
	marked.MarkedForDeletion = true
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("11")}
	cat := &Catalog{Pools: map[string]*PoolTypes{"default": {NodePool: np}}}
	replacement := &scheduling.NodeClaim{NodePool: "default", InstanceTypes: []*cloudprovider.InstanceType{{Name: "m5.xlarge", Capacity: cpu("4")}}}

	for _, tc := range []struct {
		name   string
		nodes  []*state.Node
		refuse string // "" admits
	}{
		{"nothing running", nil, ""},
		{"a node of another NodePool", []*state.Node{running("other", "spot")}, ""},
		{"a candidate marked for deletion", []*state.Node{marked}, ""},
		{"the same node running", []*state.Node{running("candidate", "default")}, "cpu 12 of 11"},
		{"two nodes, one marked", []*state.Node{marked, running("kept", "default")}, "cpu 12 of 11"},
		{"two running", []*state.Node{running("a", "default"), running("b", "default")}, "cpu 20 of 11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := newLimitCheck(&state.Snapshot{NodePools: []*karpv1.NodePool{np}, Nodes: tc.nodes}, cat).admit(replacement)
			switch {
			case tc.refuse == "" && msg != "":
				t.Errorf("refused: %s", msg)
			case tc.refuse != "" && !strings.Contains(msg, tc.refuse):
				t.Errorf("admit = %q, want a refusal naming %q", msg, tc.refuse)
			}
		})
	}
}
