package disruption

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	podutil "github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// valueNode is a consolidation candidate to order: its NodePool, instance type and pods.
type valueNode struct {
	name string
	np   *karpv1.NodePool
	it   *cloudprovider.InstanceType
	pods []*corev1.Pod
}

// valueFixture is three families' 2xlarge types and a 4xlarge at us-east-1's on-demand list
// prices (linear within a family), and two NodePools.
type valueFixture struct {
	c, m, mLarge, r *cloudprovider.InstanceType
	price           map[*cloudprovider.InstanceType]float64
	web, batch      *karpv1.NodePool
}

func newValueFixture() valueFixture {
	shape := func(cpu, mem string) *cloudprovider.InstanceType {
		return &cloudprovider.InstanceType{Capacity: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
	}
	pool := func(name string) *karpv1.NodePool { return &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	f := valueFixture{c: shape("8", "16Gi"), m: shape("8", "32Gi"), mLarge: shape("16", "64Gi"), r: shape("8", "64Gi"), web: pool("web"), batch: pool("batch")}
	f.price = map[*cloudprovider.InstanceType]float64{f.c: 0.306, f.m: 0.3456, f.mLarge: 0.6912, f.r: 0.4536}
	return f
}

// pods are n pods requesting cpu and mem.
func (valueFixture) pods(n int, cpu, mem string) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}}
	}
	return out
}

// candidates are the nodes as candidates at their types' prices, each as dear to disrupt as it
// has pods.
func (f valueFixture) candidates(nodes []valueNode) []*Candidate {
	var cands []*Candidate
	for _, n := range nodes {
		cands = append(cands, &Candidate{Node: &state.Node{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name}}},
			NodePool: n.np, InstanceType: n.it, Price: f.price[n.it], Reschedulable: n.pods, DisruptionCost: float64(len(n.pods))})
	}
	return cands
}

func TestSortForConsolidation(t *testing.T) {
	f := newValueFixture()
	c, m, mLarge, r, web, batch, pods := f.c, f.m, f.mLarge, f.r, f.web, f.batch, f.pods
	type node = valueNode
	changed := time.Unix(1, 0) // a stuck record from before the node's pods changed
	// pods of 4 GiB a CPU on each family
	balanced := []node{
		{"m-3", web, m, pods(3, "1", "4Gi")},
		{"r-2", web, r, pods(2, "1", "4Gi")},
		{"c-1", web, c, pods(1, "1", "4Gi")},
		{"m-1", web, m, pods(1, "1", "4Gi")},
		{"r-1", web, r, pods(1, "1", "4Gi")},
	}
	for _, tt := range []struct {
		name  string
		nodes []node
		stuck map[string]time.Time
		want  []string
	}{
		{"pods of 4 GiB a CPU: the compute and memory types first, each cheapest to disrupt first", balanced, nil, []string{"c-1", "r-1", "r-2", "m-1", "m-3"}},
		{"stuck nodes go last; one whose pods changed since is not stuck", balanced, map[string]time.Time{"c-1": {}, "r-2": {}, "r-1": changed}, []string{"r-1", "m-1", "m-3", "c-1", "r-2"}},
		{"pods of 8 GiB a CPU: the memory type is the best value, kept last", []node{
			{"r-1", web, r, pods(1, "1", "8Gi")},
			{"m-2", web, m, pods(2, "1", "8Gi")},
			{"c-3", web, c, pods(3, "1", "8Gi")},
		}, nil, []string{"c-3", "m-2", "r-1"}},
		{"sizes of one family are one class: Karpenter's order", []node{
			{"m-large-1", web, mLarge, pods(1, "1", "4Gi")},
			{"m-3", web, m, pods(3, "1", "4Gi")},
			{"m-2", web, m, pods(2, "1", "4Gi")},
		}, nil, []string{"m-large-1", "m-2", "m-3"}},
		{"no pods to move: Karpenter's order", []node{
			{"r-b", web, r, nil},
			{"m-a", web, m, nil},
			{"c-c", web, c, nil},
		}, nil, []string{"c-c", "m-a", "r-b"}},
		{"each NodePool is rated by its own pods", []node{
			{"web-m", web, m, pods(2, "1", "1Gi")},
			{"web-c", web, c, pods(2, "1", "1Gi")},
			{"batch-r", batch, r, pods(2, "1", "8Gi")},
			{"batch-m", batch, m, pods(1, "1", "8Gi")},
		}, nil, []string{"batch-m", "web-m", "batch-r", "web-c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cands := f.candidates(tt.nodes)
			sortForConsolidation(cands, valueRatios(cands, podutil.Requests), tt.stuck)
			got := make([]string, len(cands))
			for i, cand := range cands {
				got[i] = cand.Name()
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOrderOf(t *testing.T) {
	f := newValueFixture()
	c, m, r, web, pods := f.c, f.m, f.r, f.web, f.pods
	nodes := []valueNode{
		{"m-3", web, m, pods(3, "1", "4Gi")},
		{"r-2", web, r, pods(2, "1", "4Gi")},
		{"c-1", web, c, pods(1, "1", "4Gi")},
		{"m-1", web, m, pods(1, "1", "4Gi")},
	}
	for _, tt := range []struct {
		node, want string
		stuck      map[string]time.Time
	}{
		{"c-1", "1 of 4 candidates: nodes of its type would cost 1.77x the NodePool's best to hold its pods: before better-value nodes", nil},
		{"r-2", "2 of 4 candidates: nodes of its type would cost 1.31x the NodePool's best", nil},
		{"m-1", "3 of 4 candidates: its type is among the NodePool's best value for its pods: Karpenter's order, cheapest to disrupt first", nil},
		{"m-3", "4 of 4 candidates: its type is among the NodePool's best value", nil},
		{"gone", "", nil},
		{"c-1", "4 of 4 candidates: single-node consolidation found no move for it and its pods have not changed since", map[string]time.Time{"c-1": {}}},
		{"m-1", "2 of 4 candidates: its type is among the NodePool's best value", map[string]time.Time{"c-1": {}}},
		{"c-1", "1 of 4 candidates: nodes of its type would cost 1.77x", map[string]time.Time{"c-1": time.Unix(1, 0)}}, // its pods changed since
	} {
		t.Run(tt.node, func(t *testing.T) {
			got := orderOf(f.candidates(nodes), tt.node, tt.stuck, podutil.Requests)
			if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
				t.Errorf("orderOf(%s) = %q, want it to start %q", tt.node, got, tt.want)
			}
		})
	}
}
