package disruption

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

func TestSortForConsolidation(t *testing.T) {
	shape := func(cpu, mem string) *cloudprovider.InstanceType {
		return &cloudprovider.InstanceType{Capacity: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
	}
	// On-demand list prices of us-east-1: linear within a family.
	c, m, mLarge, r := shape("8", "16Gi"), shape("8", "32Gi"), shape("16", "64Gi"), shape("8", "64Gi")
	price := map[*cloudprovider.InstanceType]float64{c: 0.306, m: 0.3456, mLarge: 0.6912, r: 0.4536}
	pool := func(name string) *karpv1.NodePool { return &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	web, batch := pool("web"), pool("batch")
	pods := func(n int, cpu, mem string) []*corev1.Pod {
		out := make([]*corev1.Pod, n)
		for i := range out {
			out[i] = &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}}
		}
		return out
	}
	type node struct {
		name string
		np   *karpv1.NodePool
		it   *cloudprovider.InstanceType
		pods []*corev1.Pod
	}
	for _, tt := range []struct {
		name  string
		nodes []node
		want  []string
	}{
		{"pods of 4 GiB a CPU: the compute and memory types first, each cheapest to disrupt first", []node{
			{"m-3", web, m, pods(3, "1", "4Gi")},
			{"r-2", web, r, pods(2, "1", "4Gi")},
			{"c-1", web, c, pods(1, "1", "4Gi")},
			{"m-1", web, m, pods(1, "1", "4Gi")},
			{"r-1", web, r, pods(1, "1", "4Gi")},
		}, []string{"c-1", "r-1", "r-2", "m-1", "m-3"}},
		{"pods of 8 GiB a CPU: the memory type is the best value, kept last", []node{
			{"r-1", web, r, pods(1, "1", "8Gi")},
			{"m-2", web, m, pods(2, "1", "8Gi")},
			{"c-3", web, c, pods(3, "1", "8Gi")},
		}, []string{"c-3", "m-2", "r-1"}},
		{"sizes of one family are one class: Karpenter's order", []node{
			{"m-large-1", web, mLarge, pods(1, "1", "4Gi")},
			{"m-3", web, m, pods(3, "1", "4Gi")},
			{"m-2", web, m, pods(2, "1", "4Gi")},
		}, []string{"m-large-1", "m-2", "m-3"}},
		{"no pods to move: Karpenter's order", []node{
			{"r-b", web, r, nil},
			{"m-a", web, m, nil},
			{"c-c", web, c, nil},
		}, []string{"c-c", "m-a", "r-b"}},
		{"each NodePool is rated by its own pods", []node{
			{"web-m", web, m, pods(2, "1", "1Gi")},
			{"web-c", web, c, pods(2, "1", "1Gi")},
			{"batch-r", batch, r, pods(2, "1", "8Gi")},
			{"batch-m", batch, m, pods(1, "1", "8Gi")},
		}, []string{"batch-m", "web-m", "batch-r", "web-c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var cands []*Candidate
			for _, n := range tt.nodes {
				cands = append(cands, &Candidate{Node: &state.Node{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name}}},
					NodePool: n.np, InstanceType: n.it, Price: price[n.it], Reschedulable: n.pods, DisruptionCost: float64(len(n.pods))})
			}
			sortForConsolidation(cands)
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
