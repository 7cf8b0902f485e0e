package cloudprovider

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/engine/requirements"
)

// InstanceType is a machine shape a NodePool may launch.
type InstanceType struct {
	Name string
	// Requirements carries the type's well-known labels (architecture, OS, instance type, family,
	// size, cpu, memory...), plus the zones and capacity types its offerings cover.
	Requirements requirements.Requirements
	// Offerings are the ways to buy it: one per zone and capacity type.
	Offerings Offerings
	// Capacity is what the machine reports to the kubelet (after the hypervisor's share).
	Capacity corev1.ResourceList
	// Overhead is what the kubelet holds back from pods.
	Overhead Overhead
}

// Overhead is the part of a machine's capacity that pods cannot use.
type Overhead struct {
	KubeReserved      corev1.ResourceList
	SystemReserved    corev1.ResourceList
	EvictionThreshold corev1.ResourceList
}

// Total sums the three reservations.
func (o Overhead) Total() corev1.ResourceList {
	total := corev1.ResourceList{}
	for _, l := range []corev1.ResourceList{o.KubeReserved, o.SystemReserved, o.EvictionThreshold} {
		for name, q := range l {
			sum := total[name]
			sum.Add(q)
			total[name] = sum
		}
	}
	return total
}

// Allocatable is what pods can request on this type: capacity minus overhead, never negative.
func (it *InstanceType) Allocatable() corev1.ResourceList {
	out := corev1.ResourceList{}
	overhead := it.Overhead.Total()
	for name, q := range it.Capacity {
		v := q.DeepCopy()
		if o, ok := overhead[name]; ok {
			v.Sub(o)
		}
		if v.Sign() < 0 {
			v = resource.Quantity{Format: q.Format}
		}
		out[name] = v
	}
	return out
}
