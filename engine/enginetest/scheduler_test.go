package enginetest

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// readyNode is a Ready node with 4 CPUs, 8Gi and 10 pods allocatable, in zone us-east-1a.
func readyNode(name string, change ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name, corev1.LabelTopologyZone: "us-east-1a"}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: Resources("4", "")[corev1.ResourceCPU],
				corev1.ResourceMemory: Resources("", "8Gi")[corev1.ResourceMemory], corev1.ResourcePods: *newQuantity(10)},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	for _, c := range change {
		c(n)
	}
	return n
}

func TestSchedulerBindsOrMarksUnschedulable(t *testing.T) {
	tainted := func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	}
	// Half a's CPU, four times its memory: a pod of 1 CPU and 3Gi leaves more free on b (least
	// allocated), but uses a's CPU and memory more alike (balanced).
	memoryRich := func(n *corev1.Node) {
		n.Status.Allocatable[corev1.ResourceCPU] = Resources("2", "")[corev1.ResourceCPU]
		n.Status.Allocatable[corev1.ResourceMemory] = Resources("", "32Gi")[corev1.ResourceMemory]
	}
	for _, tc := range []struct {
		name  string
		nodes []*corev1.Node
		// pods are created in order, each with the options given.
		pods     map[string][]PodOption
		cpu, mem string
		env      []Option
		// want maps each pod to its node, or to a fragment of its Unschedulable message.
		want map[string]string
	}{
		{name: "least allocated node", nodes: []*corev1.Node{readyNode("a"), readyNode("b")},
			pods: map[string][]PodOption{"p1": nil}, cpu: "1",
			want: map[string]string{"p1": "node:a"}},
		{name: "nominated node preferred", nodes: []*corev1.Node{readyNode("a"), readyNode("b")},
			pods: map[string][]PodOption{"p1": {nominated("b")}}, cpu: "1",
			want: map[string]string{"p1": "node:b"}},
		{name: "spread by free share", nodes: []*corev1.Node{readyNode("a"), readyNode("b")},
			pods: map[string][]PodOption{"p1": nil, "p2": nil}, cpu: "1",
			want: map[string]string{"p1": "node:a", "p2": "node:b"}},
		{name: "least allocated, unbalanced", nodes: []*corev1.Node{readyNode("a"), readyNode("b", memoryRich)},
			pods: map[string][]PodOption{"p1": nil}, cpu: "1", mem: "3Gi",
			want: map[string]string{"p1": "node:b"}},
		{name: "balanced allocation beside it", nodes: []*corev1.Node{readyNode("a"), readyNode("b", memoryRich)},
			pods: map[string][]PodOption{"p1": nil}, cpu: "1", mem: "3Gi", env: []Option{WithBalancedAllocation()},
			want: map[string]string{"p1": "node:a"}},
		{name: "no nodes", pods: map[string][]PodOption{"p1": nil}, cpu: "1",
			want: map[string]string{"p1": "no nodes available"}},
		{name: "untolerated taint", nodes: []*corev1.Node{readyNode("a", tainted)},
			pods: map[string][]PodOption{"p1": nil, "p2": {WithTolerations(corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists})}}, cpu: "1",
			want: map[string]string{"p1": "0/1 nodes are available: 1 node(s) had untolerated taint {gpu: true}.", "p2": "node:a"}},
		{name: "node selector", nodes: []*corev1.Node{readyNode("a")},
			pods: map[string][]PodOption{"p1": {WithNodeSelector(map[string]string{corev1.LabelTopologyZone: "us-east-1b"})},
				"p2": {WithNodeRequirements(corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1a"}})}},
			cpu:  "1",
			want: map[string]string{"p1": "didn't match Pod's node affinity/selector", "p2": "node:a"}},
		{name: "insufficient cpu", nodes: []*corev1.Node{readyNode("a")},
			pods: map[string][]PodOption{"p1": nil, "p2": nil}, cpu: "3",
			want: map[string]string{"p1": "node:a", "p2": "1 Insufficient cpu"}},
		{name: "not ready and cordoned", nodes: []*corev1.Node{
			readyNode("a", func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse }),
			readyNode("b", func(n *corev1.Node) { n.Spec.Unschedulable = true })},
			pods: map[string][]PodOption{"p1": nil}, cpu: "1",
			want: map[string]string{"p1": "0/2 nodes are available: 1 node(s) were not ready, 1 node(s) were unschedulable."}},
		{name: "one per node", nodes: []*corev1.Node{readyNode("a")},
			pods: map[string][]PodOption{"p1": {OnePerNode()}, "p2": {OnePerNode()}}, cpu: "1",
			want: map[string]string{"p1": "node:a", "p2": "didn't match pod anti-affinity rules"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			e := NewEnv(t, tc.env...)
			for _, n := range tc.nodes {
				if _, err := e.API.CreateNode(ctx, n); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range []string{"p1", "p2"} {
				if opts, ok := tc.pods[name]; ok {
					e.Pod(name, Resources(tc.cpu, tc.mem), append([]PodOption{WithLabels(map[string]string{"app": "web"})}, opts...)...)
				}
			}
			changed, err := e.Scheduler.Step(ctx)
			if err != nil || !changed {
				t.Fatalf("step: changed %v, %v", changed, err)
			}
			for name, want := range tc.want {
				p, err := e.API.Pod("default", name)
				if err != nil {
					t.Fatal(err)
				}
				if node, ok := strings.CutPrefix(want, "node:"); ok {
					if p.Spec.NodeName != node || !scheduledTrue(p) {
						t.Errorf("%s on %q, want %q", name, p.Spec.NodeName, node)
					}
					continue
				}
				cond := podScheduled(p)
				if p.Spec.NodeName != "" || cond == nil || cond.Reason != corev1.PodReasonUnschedulable || !strings.Contains(cond.Message, want) {
					t.Errorf("%s: bound to %q, condition %+v, want Unschedulable with %q", name, p.Spec.NodeName, cond, want)
				}
			}
			// Nothing changes on a second pass: no churn.
			before := e.API.Version()
			if changed, err := e.Scheduler.Step(ctx); changed || err != nil || e.API.Version() != before {
				t.Errorf("second step changed %v (%v)", changed, err)
			}
		})
	}
}

func nominated(node string) PodOption {
	return func(p *corev1.Pod) { p.Status.NominatedNodeName = node }
}

func podScheduled(p *corev1.Pod) *corev1.PodCondition {
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func scheduledTrue(p *corev1.Pod) bool {
	c := podScheduled(p)
	return c != nil && c.Status == corev1.ConditionTrue
}

func newQuantity(n int64) *resource.Quantity { return resource.NewQuantity(n, resource.DecimalSI) }
