package state

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/pods"
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

// TestSnapshotPodOrder: whatever order pods arrive, move and go in, a snapshot lists them, and
// each node's, sorted by namespace and name.
func TestSnapshotPodOrder(t *testing.T) {
	type op struct {
		ns, name, node string
		remove         bool
	}
	for _, tc := range []struct {
		name string
		ops  []op
		want []string            // every pod, "ns/name"
		on   map[string][]string // each node's pods
	}{
		{"arrivals out of order", []op{{"b", "p2", "n1", false}, {"a", "p9", "n1", false}, {"b", "p1", "n2", false}, {"a", "p10", "n1", false}},
			[]string{"a/p10", "a/p9", "b/p1", "b/p2"}, map[string][]string{"n1": {"a/p10", "a/p9", "b/p2"}, "n2": {"b/p1"}}},
		{"moves and removals", []op{{"a", "p3", "n1", false}, {"a", "p1", "n1", false}, {"a", "p2", "", false}, {"a", "p1", "", true},
			{"a", "p3", "n2", false}, {"a", "p2", "n1", false}, {"a", "p0", "n2", false}, {"a", "p9", "", true}},
			[]string{"a/p0", "a/p2", "a/p3"}, map[string][]string{"n1": {"a/p2"}, "n2": {"a/p0", "a/p3"}}},
		{"all gone", []op{{"a", "p1", "n1", false}, {"a", "p1", "", true}}, nil, map[string][]string{"n1": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			for _, n := range []string{"n1", "n2"} {
				c.UpdateNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
			}
			for _, o := range tc.ops {
				if o.remove {
					c.DeletePod(types.NamespacedName{Namespace: o.ns, Name: o.name})
					continue
				}
				c.UpdatePod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: o.ns, Name: o.name}, Spec: corev1.PodSpec{NodeName: o.node},
					Status: corev1.PodStatus{Phase: corev1.PodRunning}})
			}
			keys := func(ps []*corev1.Pod) []string {
				var out []string
				for _, p := range ps {
					out = append(out, p.Namespace+"/"+p.Name)
				}
				return out
			}
			s := c.Snapshot()
			if got := keys(s.Pods); !slices.Equal(got, tc.want) {
				t.Errorf("pods %v, want %v", got, tc.want)
			}
			for node, want := range tc.on {
				if got := keys(s.NodeByName(node).Pods); !slices.Equal(got, want) {
					t.Errorf("%s's pods %v, want %v", node, got, want)
				}
			}
		})
	}
}

// TestSnapshotSharedUntilChange: snapshots of one version share their view, each with its own
// time; any change (a pod, a nomination, a mark) gives the next one a fresh view.
func TestSnapshotSharedUntilChange(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := NewCluster(clk)
	c.UpdateNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	c.UpdateNodeClaim(&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim"}})
	first := c.Snapshot()
	clk.Step(time.Second)
	second := c.Snapshot()
	if &first.Nodes[0] != &second.Nodes[0] || !second.Time.Equal(clk.Now()) || !first.Time.Before(second.Time) {
		t.Errorf("two snapshots of one version: shared view %v, times %v and %v", &first.Nodes[0] == &second.Nodes[0], first.Time, second.Time)
	}
	for _, tc := range []struct {
		name   string
		change func()
		seen   func(*Snapshot) bool
	}{
		{"a pod", func() {
			c.UpdatePod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p"}, Spec: corev1.PodSpec{NodeName: "n1"},
				Status: corev1.PodStatus{Phase: corev1.PodRunning}})
		}, func(s *Snapshot) bool { return len(s.NodeByName("n1").Pods) == 1 }},
		{"a nomination", func() { c.Nominate("claim", clk.Now().Add(time.Minute)) },
			func(s *Snapshot) bool { return s.NodeByName("claim").Nominated(clk.Now()) }},
		{"a mark", func() { c.MarkForDeletion("claim") }, func(s *Snapshot) bool { return s.NodeByName("claim").MarkedForDeletion }},
		{"a node gone", func() { c.DeleteNode("n1") }, func(s *Snapshot) bool { return s.NodeByName("n1") == nil }},
	} {
		before := c.Snapshot()
		tc.change()
		if after := c.Snapshot(); after.Version == before.Version || !tc.seen(after) {
			t.Errorf("%s: the snapshot after it does not show it (version %d, before %d)", tc.name, after.Version, before.Version)
		}
	}
}

// TestConsolidationVersion: a change a consolidation decision reads moves ConsolidationVersion;
// the status updates a busy cluster makes all the time move only Version. Each change is made
// to the objects as the one before left them.
func TestConsolidationVersion(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := NewCluster(clk)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	// As admission gives every pod: a toleration with seconds, a pointer each copy holds anew.
	notReady := corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p"}, Spec: corev1.PodSpec{NodeName: "n1", Tolerations: []corev1.Toleration{notReady}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	c.UpdateNode(node)
	c.UpdatePod(pod)
	podChange := func(change func(*corev1.Pod)) func() {
		return func() {
			pod = pod.DeepCopy()
			change(pod)
			c.UpdatePod(pod)
		}
	}
	nodeChange := func(change func(*corev1.Node)) func() {
		return func() {
			node = node.DeepCopy()
			change(node)
			c.UpdateNode(node)
		}
	}
	for _, tc := range []struct {
		name    string
		change  func()
		matters bool
	}{
		{"a container restarted", podChange(func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", RestartCount: 3}}
			p.Status.PodIP = "10.0.0.7"
		}), false},
		{"a node's heartbeat", nodeChange(func(n *corev1.Node) {
			n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(clk.Now().Add(time.Minute))
			n.Status.Images = []corev1.ContainerImage{{Names: []string{"pause"}}}
		}), false},
		{"a pod's do-not-disrupt annotation", podChange(func(p *corev1.Pod) {
			p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
		}), true},
		{"a pod's first container", podChange(func(p *corev1.Pod) { p.Spec.Containers = []corev1.Container{{Name: "app"}} }), true},
		{"a pod resized in place", podChange(func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}
		}), true},
		{"a pod's toleration seconds", podChange(func(p *corev1.Pod) { p.Spec.Tolerations[0].TolerationSeconds = ptr.To[int64](60) }), true},
		{"a pod finished", podChange(func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }), true},
		{"a node tainted", nodeChange(func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
		}), true},
		{"a node's allocatable", nodeChange(func(n *corev1.Node) {
			n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
		}), true},
		{"a node not ready", nodeChange(func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse }), true},
		{"a new pod", func() { c.UpdatePod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "q"}}) }, true},
		{"a nomination", func() { c.Nominate("n1", clk.Now().Add(time.Minute)) }, true},
	} {
		before := c.Snapshot()
		tc.change()
		after := c.Snapshot()
		if after.Version == before.Version {
			t.Errorf("%s: Version did not change", tc.name)
		}
		if moved := after.ConsolidationVersion != before.ConsolidationVersion; moved != tc.matters {
			t.Errorf("%s: ConsolidationVersion moved %v, want %v", tc.name, moved, tc.matters)
		}
	}
}

// TestExpect: a NodeClaim the engine created is in the state before its watch event, unless the
// informer delivered a newer copy, or its deletion, first.
func TestExpect(t *testing.T) {
	created := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim", ResourceVersion: "1"}}
	launched := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim", ResourceVersion: "2"}}
	for _, tc := range []struct {
		name    string
		watched func(*Cluster) // what the informer delivered before Expect
		want    string         // the resource version the state holds after, "" for none
	}{
		{"before its watch event", func(*Cluster) {}, "1"},
		{"after a newer copy", func(c *Cluster) { c.UpdateNodeClaim(launched) }, "2"},
		{"after its deletion", func(c *Cluster) {
			c.UpdateNodeClaim(launched)
			c.DeleteNodeClaim("claim")
		}, ""},
	} {
		c := NewCluster(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		tc.watched(c)
		c.Expect(created)
		got := ""
		if sn := c.Snapshot().NodeByName("claim"); sn != nil {
			got = sn.NodeClaim.ResourceVersion
		}
		if got != tc.want {
			t.Errorf("%s: the state holds version %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSnapshotRequests(t *testing.T) {
	pod := func(cpu string, limitOnly bool) *corev1.Pod {
		res := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
		if limitOnly {
			res = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: res}}}}
	}
	c := NewCluster(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		wantCPU string
	}{
		{"stored", pod("500m", false), "500m"},
		{"rewritten with more", pod("2", false), "2"},
		{"a limit without a request", pod("750m", true), "750m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.UpdatePod(tc.pod)
			snap := c.Snapshot()
			if got := snap.Requests(snap.Pods[0]); got.Cpu().Cmp(resource.MustParse(tc.wantCPU)) != 0 {
				t.Errorf("Requests of the stored pod: CPU %s, want %s", got.Cpu(), tc.wantCPU)
			}
			if got := snap.Requests(pod("3", false)); got.Cpu().Cmp(resource.MustParse("3")) != 0 {
				t.Errorf("Requests of a pod the snapshot does not hold: CPU %s, want 3", got.Cpu())
			}
		})
	}
	// The copies of one version share the index: a copy whose Pods a caller reordered, asking
	// first, must not pair the pods with other pods' requests.
	second := pod("4", false)
	second.Name = "q"
	c.UpdatePod(second)
	snap, reordered := c.Snapshot(), c.Snapshot()
	reordered.Pods = []*corev1.Pod{snap.Pods[1], snap.Pods[0]}
	reordered.Requests(reordered.Pods[0])
	for _, p := range snap.Pods {
		if got, want := snap.Requests(p), pods.Requests(p); got.Cpu().Cmp(*want.Cpu()) != 0 {
			t.Errorf("Requests of %s after a reordered copy asked first: CPU %s, want %s", p.Name, got.Cpu(), want.Cpu())
		}
	}
}
