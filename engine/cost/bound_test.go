package cost

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

func boundType(name, cpu, memory string, price float64) *cloudprovider.InstanceType {
	return &cloudprovider.InstanceType{
		Name:         name,
		Requirements: requirements.FromLabels(map[string]string{corev1.LabelInstanceTypeStable: name}),
		Offerings:    cloudprovider.Offerings{{Zone: "zone-a", CapacityType: "on-demand", Price: price, Available: true}},
		Capacity:     corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
	}
}

func TestBounds(t *testing.T) {
	// compute: 4 CPUs and 8 GiB for $0.40; memory: 2 CPUs and 16 GiB for $0.30.
	types := []*cloudprovider.InstanceType{boundType("compute", "4", "8Gi", 0.40), boundType("memory", "2", "16Gi", 0.30)}
	gib := float64(1 << 30)
	for _, tc := range []struct {
		name              string
		demand            Demand
		only              string
		lower, fractional float64
	}{
		{name: "nothing to hold costs nothing", demand: Demand{}},
		{name: "CPU-heavy: two compute nodes, which the CPU bound prices exactly", demand: Demand{CPU: 8000, Memory: 8 * gib},
			lower: 0.80, fractional: 0.80},
		{name: "memory-heavy: two memory nodes", demand: Demand{CPU: 4000, Memory: 32 * gib}, lower: 0.60, fractional: 0.60},
		{name: "both: a mix of the two types (4/3 of each) beats either alone; the bound stays below",
			demand: Demand{CPU: 8000, Memory: 32 * gib}, lower: 0.80, fractional: 4.0/3*0.40 + 4.0/3*0.30},
		{name: "a NodePool allowing only compute pays for memory with CPU", demand: Demand{CPU: 8000, Memory: 32 * gib}, only: "compute",
			lower: 1.60, fractional: 1.60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reqs []*requirements.Requirement
			if tc.only != "" {
				reqs = append(reqs, requirements.New(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, tc.only))
			}
			np := scheduling.NodePool{Name: "default", Requirements: requirements.Of(reqs...), InstanceTypes: types}
			if got := LowerBound(tc.demand, np); math.Abs(got-tc.lower) > 1e-9 {
				t.Errorf("LowerBound = %.4f, want %.4f", got, tc.lower)
			}
			if got := FractionalOptimum(tc.demand, np); math.Abs(got-tc.fractional) > 1e-9 {
				t.Errorf("FractionalOptimum = %.4f, want %.4f", got, tc.fractional)
			}
		})
	}
}

func TestDemandOfCountsInitContainersAsTheSchedulerDoes(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}},
		Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}},
			{Name: "b", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}},
		},
	}}
	if got, want := DemandOf([]*corev1.Pod{p, p}), (Demand{CPU: 6000, Memory: 2 << 30}); got != want {
		t.Errorf("DemandOf = %+v, want %+v", got, want)
	}
}
