package provisioning

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// TestReplan: the pods a drain of a dynamic NodePool's nodes would move, and the pending ones,
// are placed again; a static NodePool's node and a node no NodePool manages stay, with their
// pods; DaemonSet pods stay with their nodes; limits count nothing already running.
func TestReplan(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	c := state.NewCluster(clk)
	replicas := int64(1)
	dynamic := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	dynamic.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("100")}
	static := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "fixed"}}
	static.Spec.Replicas = &replicas
	node := func(name, pool string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}}}
		if pool != "" {
			n.Labels[karpv1.NodePoolLabelKey] = pool
		}
		n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"),
			corev1.ResourcePods: resource.MustParse("110")}
		n.Status.Capacity = n.Status.Allocatable
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		return n
	}
	pod := func(name, nodeName, owner string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "app"}}}}
		if owner != "" {
			controller := true
			p.OwnerReferences = []metav1.OwnerReference{{Kind: owner, Name: "x", Controller: &controller}}
		}
		if nodeName == "" {
			p.Status.Phase = corev1.PodPending
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
		} else {
			p.Status.Phase = corev1.PodRunning
		}
		return p
	}
	c.UpdateNodePool(dynamic)
	c.UpdateNodePool(static)
	for _, n := range []*corev1.Node{node("dyn", "default"), node("fix", "fixed"), node("own", "")} {
		c.UpdateNode(n)
	}
	for _, p := range []*corev1.Pod{pod("moves", "dyn", "ReplicaSet"), pod("daemon", "dyn", "DaemonSet"), pod("on-static", "fix", "ReplicaSet"),
		pod("on-own", "own", "ReplicaSet"), pod("pending", "", "ReplicaSet")} {
		c.UpdatePod(p)
	}
	for _, k := range state.Kinds() {
		c.MarkSynced(k)
	}
	cat := &Catalog{Pools: map[string]*PoolTypes{"default": {NodePool: dynamic}, "fixed": {NodePool: static}}}

	in := Replan(c.Snapshot(), cat, scheduling.DefaultOptions(), nil)
	var placed, nodes, pools []string
	for _, p := range in.Pods {
		placed = append(placed, p.Name)
	}
	for _, n := range in.Nodes {
		nodes = append(nodes, n.Name)
	}
	for _, np := range in.NodePools {
		pools = append(pools, np.Name)
		if len(np.Usage) != 0 {
			t.Errorf("NodePool %s counts %v against its limits, want nothing", np.Name, np.Usage)
		}
	}
	slices.Sort(nodes)
	if !slices.Equal(placed, []string{"moves", "pending"}) || !slices.Equal(nodes, []string{"fix", "own"}) || !slices.Equal(pools, []string{"default"}) {
		t.Errorf("placed %v over nodes %v and NodePools %v; want [moves pending] over [fix own] and [default]", placed, nodes, pools)
	}
}
