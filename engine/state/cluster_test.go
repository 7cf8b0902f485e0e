package state

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

func TestSnapshotJoinsAndIndexes(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := NewCluster(clk)
	changes := c.Subscribe()

	c.UpdateNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Spec: corev1.NodeSpec{ProviderID: "aws:///us-east-1a/i-a"}})
	c.UpdateNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "unmanaged"}})
	c.UpdateNodeClaim(&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim-a"}, Status: karpv1.NodeClaimStatus{ProviderID: "aws:///us-east-1a/i-a"}})
	c.UpdateNodeClaim(&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim-b"}})
	running := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	c.UpdatePod(running("p1", "node-a"))
	clk.Step(time.Minute)
	c.UpdatePod(running("p2", "node-a"))
	c.UpdatePod(running("p3", "unmanaged"))
	select {
	case <-changes:
	default:
		t.Fatal("no change notified")
	}

	s := c.Snapshot()
	if s.Synced {
		t.Error("synced before any informer said so")
	}
	if len(s.Nodes) != 3 {
		t.Fatalf("%d state nodes, want node-a (joined), unmanaged, claim-b (not registered)", len(s.Nodes))
	}
	a := s.NodeByName("node-a")
	if a.NodeClaim == nil || a.NodeClaim.Name != "claim-a" || len(a.Pods) != 2 || !a.LastPodEvent.Equal(clk.Now()) {
		t.Errorf("node-a: claim %v, %d pods, last pod event %v", a.NodeClaim, len(a.Pods), a.LastPodEvent)
	}
	if b := s.NodeByName("claim-b"); b == nil || b.Node != nil || !b.Managed() {
		t.Errorf("claim-b should appear as a managed node without a Node: %+v", b)
	}
	if u := s.NodeByName("unmanaged"); u.Managed() || len(u.Pods) != 1 {
		t.Errorf("unmanaged: %+v", u)
	}

	// A pod that finishes leaves its node; a moved pod follows; deletion forgets.
	done := running("p1", "node-a")
	done.Status.Phase = corev1.PodSucceeded
	c.UpdatePod(done)
	c.UpdatePod(running("p2", "unmanaged"))
	c.DeletePod(types.NamespacedName{Namespace: "default", Name: "p3"})
	c.Nominate("claim-b", clk.Now().Add(20*time.Second))
	c.MarkForDeletion("claim-a")
	for _, k := range Kinds() {
		c.MarkSynced(k)
	}
	s = c.Snapshot()
	if got := len(s.NodeByName("node-a").Pods); got != 0 {
		t.Errorf("node-a has %d pods after its pods finished or moved", got)
	}
	if got := s.NodeByName("unmanaged").Pods; len(got) != 1 || got[0].Name != "p2" {
		t.Errorf("unmanaged pods %v, want p2", got)
	}
	if !s.NodeByName("node-a").MarkedForDeletion || !s.NodeByName("claim-b").Nominated(clk.Now()) || !s.Synced {
		t.Error("marks, nominations or sync state lost")
	}
	if s.NodeByName("claim-b").Nominated(clk.Now().Add(21 * time.Second)) {
		t.Error("nomination outlived its time")
	}
}
