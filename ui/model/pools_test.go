package model_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/lifecycle"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// TestPoolUsageIsTheStatus checks that the console's NodePool totals are what the NodePool's
// status says (status.nodes and status.resources, which karpenter_nodepools_usage reports too):
// every node labelled with the NodePool counts, managed or not, except those marked for deletion,
// as Karpenter's cluster state counts them. The console once counted managed nodes only.
func TestPoolUsageIsTheStatus(t *testing.T) {
	capacity := func(cpu, mem string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	}
	node := func(name, pool, providerID string, c corev1.ResourceList) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
			Spec: corev1.NodeSpec{ProviderID: providerID}, Status: corev1.NodeStatus{Capacity: c}}
		if pool != "" {
			n.Labels[karpv1.NodePoolLabelKey] = pool
		}
		return n
	}
	claim := func(name, pool, providerID string, c corev1.ResourceList) *karpv1.NodeClaim {
		return &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.NodePoolLabelKey: pool}},
			Status: karpv1.NodeClaimStatus{ProviderID: providerID, Capacity: c}}
	}
	managed := &state.Node{Node: node("managed", "default", "aws:///i-1", capacity("4", "16Gi")),
		NodeClaim: claim("default-a", "default", "aws:///i-1", capacity("4", "16Gi"))}
	inFlight := &state.Node{NodeClaim: claim("default-b", "default", "", capacity("2", "8Gi"))}
	unmanaged := &state.Node{Node: node("joined-by-hand", "default", "aws:///i-2", capacity("8", "32Gi"))}
	unlabelled := &state.Node{Node: node("system", "", "aws:///i-3", capacity("2", "4Gi"))}
	leaving := &state.Node{Node: node("leaving", "default", "aws:///i-4", capacity("16", "64Gi")),
		NodeClaim: claim("default-c", "default", "aws:///i-4", capacity("16", "64Gi")), MarkedForDeletion: true}

	for _, tc := range []struct {
		name      string
		nodes     []*state.Node
		wantNodes int
		wantCPU   int64 // millicores
		wantMemGi int64
	}{
		{name: "managed and in flight", nodes: []*state.Node{managed, inFlight}, wantNodes: 2, wantCPU: 6000, wantMemGi: 24},
		{name: "an unmanaged node labelled with the NodePool", nodes: []*state.Node{managed, unmanaged}, wantNodes: 2, wantCPU: 12000, wantMemGi: 48},
		{name: "a node of no NodePool", nodes: []*state.Node{managed, unlabelled}, wantNodes: 1, wantCPU: 4000, wantMemGi: 16},
		{name: "a node marked for deletion", nodes: []*state.Node{managed, leaving}, wantNodes: 1, wantCPU: 4000, wantMemGi: 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
			np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
			snap := &state.Snapshot{NodePools: []*karpv1.NodePool{np}, Nodes: tc.nodes}
			status := np.DeepCopy()
			lifecycle.SetNodePoolStatus(snap, snap.PoolUsage()[np.Name], status)

			got, ok := model.New(model.Input{Snapshot: snap}).Pool(np.Name)
			if !ok {
				t.Fatal("the console has no NodePool default")
			}
			statusCPU, statusMem := render.Resources(status.Status.Resources)
			if int64(got.Nodes) != *status.Status.Nodes || got.CPU != statusCPU || got.Mem != statusMem {
				t.Errorf("console: %d nodes, %dm CPU, %d bytes; status: %d nodes, %dm CPU, %d bytes",
					got.Nodes, got.CPU, got.Mem, *status.Status.Nodes, statusCPU, statusMem)
			}
			if got.Nodes != tc.wantNodes || got.CPU != tc.wantCPU || got.Mem != tc.wantMemGi<<30 {
				t.Errorf("console: %d nodes, %dm CPU, %d bytes; want %d nodes, %dm CPU, %dGi",
					got.Nodes, got.CPU, got.Mem, tc.wantNodes, tc.wantCPU, tc.wantMemGi)
			}
		})
	}
}
