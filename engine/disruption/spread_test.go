package disruption

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	podutil "github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

func TestSpreads(t *testing.T) {
	cpu := func(m int64) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(m, resource.DecimalSI),
			corev1.ResourceMemory: resource.MustParse("64Mi")}
	}
	pod := func(name string, m int64) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: cpu(m)}}}}}
	}
	// node is an 8-CPU node for 58 pods with free millicores left free, running 10 pods.
	node := func(name string, free int64, taints ...corev1.Taint) scheduling.ExistingNode {
		alloc, requested := cpu(8000), cpu(8000-free)
		alloc[corev1.ResourceMemory] = resource.MustParse("32Gi")
		alloc[corev1.ResourcePods], requested[corev1.ResourcePods] = resource.MustParse("58"), resource.MustParse("10")
		return scheduling.ExistingNode{Name: name, Allocatable: alloc, Requested: requested, Taints: taints}
	}
	// shaped is a node with free millicores and free GiB of memory left, and a pod asking for
	// both.
	shaped := func(name string, free, freeGiB int64) scheduling.ExistingNode {
		n := node(name, free)
		n.Requested[corev1.ResourceMemory] = *resource.NewQuantity((32-freeGiB)<<30, resource.BinarySI)
		return n
	}
	shapedPod := func(name string, m, gib int64) *corev1.Pod {
		p := pod(name, m)
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = *resource.NewQuantity(gib<<30, resource.BinarySI)
		return p
	}
	cpuHeavy, memHeavy := shapedPod("cpu-heavy", 3000, 2), shapedPod("memory-heavy", 1000, 16)
	full := node("full", 8000)
	full.Requested[corev1.ResourcePods] = resource.MustParse("58")
	replacement := func(m int64, ps ...*corev1.Pod) *scheduling.NodeClaim {
		capacity := cpu(m)
		capacity[corev1.ResourceMemory] = resource.MustParse("16Gi")
		capacity[corev1.ResourcePods] = resource.MustParse("58")
		return &scheduling.NodeClaim{Hostname: "replacement", InstanceType: &cloudprovider.InstanceType{Capacity: capacity}, Pods: ps}
	}
	big, small1, small2 := pod("big", 2000), pod("small-1", 500), pod("small-2", 500)
	pinned := pod("pinned", 2000)
	pinned.Spec.NodeSelector = map[string]string{"topology.kubernetes.io/zone": "us-east-1a"}
	sidecarPort := pod("sidecar-port", 2000)
	always := corev1.ContainerRestartPolicyAlways
	sidecarPort.Spec.InitContainers = []corev1.Container{{Name: "proxy", RestartPolicy: &always, Ports: []corev1.ContainerPort{{ContainerPort: 9901, HostPort: 9901}}}}
	scratch := pod("scratch", 500)
	scratch.Spec.Containers[0].Resources.Requests[corev1.ResourceEphemeralStorage] = resource.MustParse("1Gi")
	gpuTaint := corev1.Taint{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name         string
		nodes        []scheduling.ExistingNode
		placed       map[string][]*corev1.Pod // where the simulation put the moving pods on existing nodes
		replacements []*scheduling.NodeClaim
		leaving      []string
		want         *corev1.Pod
	}{{
		// The simulation puts the large pod in a's gap and the small ones on b; kube-scheduler
		// puts the small ones on a, the emptiest, first.
		name:   "the small pods take the one gap the large pod fits",
		nodes:  []scheduling.ExistingNode{node("a", 2000), node("b", 1000)},
		placed: map[string][]*corev1.Pod{"a": {big}, "b": {small1, small2}},
		want:   big,
	}, {
		// Smallest first, the memory-heavy pod takes a and the CPU-heavy one b. Should the
		// CPU-heavy pod come first, kube-scheduler puts it on a, the least allocated, and the
		// memory-heavy pod fits nowhere.
		name:   "a large pod of one shape takes the gap a pod of another shape needs",
		nodes:  []scheduling.ExistingNode{shaped("a", 3000, 16), shaped("b", 3000, 2)},
		placed: map[string][]*corev1.Pod{"a": {memHeavy}, "b": {cpuHeavy}},
		want:   memHeavy,
	}, {
		name:   "the gap holds them all",
		nodes:  []scheduling.ExistingNode{node("a", 3000), node("b", 1000)},
		placed: map[string][]*corev1.Pod{"a": {big}, "b": {small1, small2}},
	}, {
		name:         "the replacement, emptiest, takes the small pods and still holds the large one",
		nodes:        []scheduling.ExistingNode{node("a", 1000)},
		placed:       map[string][]*corev1.Pod{"a": {small1, small2}},
		replacements: []*scheduling.NodeClaim{replacement(4000, big)},
	}, {
		name:         "the replacement, emptiest, takes the small pods and has no room left for the large one",
		nodes:        []scheduling.ExistingNode{node("a", 1000)},
		placed:       map[string][]*corev1.Pod{"a": {small1, small2}},
		replacements: []*scheduling.NodeClaim{replacement(2500, big)},
		want:         big,
	}, {
		name:   "a pod that asks for a label goes where the simulation put it",
		nodes:  []scheduling.ExistingNode{node("a", 2000), node("b", 1000)},
		placed: map[string][]*corev1.Pod{"a": {pinned}, "b": {small1, small2}},
	}, {
		name:   "a node whose taint the pod does not tolerate takes none",
		nodes:  []scheduling.ExistingNode{node("a", 8000, gpuTaint), node("b", 1500)},
		placed: map[string][]*corev1.Pod{"b": {big}},
		want:   big,
	}, {
		// kube-scheduler's fit filter counts pod slots: the node with the most CPU free runs its
		// maximum of pods, so the small pod takes b's gap and the large one has none.
		name:   "a node without a free pod slot takes none",
		nodes:  []scheduling.ExistingNode{full, node("b", 2000)},
		placed: map[string][]*corev1.Pod{"b": {big, small1}},
		want:   big,
	}, {
		// The fit filter checks every resource the pod asks for: these nodes report no
		// ephemeral storage.
		name:   "a resource the nodes do not have",
		nodes:  []scheduling.ExistingNode{node("a", 2000)},
		placed: map[string][]*corev1.Pod{"a": {scratch}},
		want:   scratch,
	}, {
		name:    "a node leaving takes none",
		nodes:   []scheduling.ExistingNode{node("a", 8000), node("b", 1500)},
		placed:  map[string][]*corev1.Pod{"b": {big}},
		leaving: []string{"a"},
		want:    big,
	}, {
		name:   "a pod whose sidecar takes a host port goes where the simulation put it",
		nodes:  []scheduling.ExistingNode{node("a", 2000), node("b", 1000)},
		placed: map[string][]*corev1.Pod{"a": {sidecarPort}, "b": {small1, small2}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			moving := map[*corev1.Pod]bool{}
			results := &scheduling.Results{}
			for _, n := range tc.nodes {
				if ps := tc.placed[n.Name]; len(ps) > 0 {
					results.ExistingNodes = append(results.ExistingNodes, &scheduling.ExistingNodeResult{Name: n.Name, Pods: ps})
				}
			}
			for _, en := range results.ExistingNodes {
				for _, p := range en.Pods {
					moving[p] = true
				}
			}
			for _, r := range tc.replacements {
				for _, p := range r.Pods {
					moving[p] = true
				}
			}
			// The same base answers twice alike: a check leaves it as it found it.
			base := newSpreadBase(tc.nodes, podutil.Requests)
			for round := range 2 {
				if got := base.spreads(tc.leaving, results, tc.replacements, moving); got != tc.want {
					t.Errorf("round %d: left pending: %v, want %v", round, podName(got), podName(tc.want))
				}
			}
		})
	}
}

func podName(p *corev1.Pod) string {
	if p == nil {
		return "none"
	}
	return p.Name
}
