package cost

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// Demand is what pods request in total: CPU in millicores, memory in bytes.
type Demand struct{ CPU, Memory float64 }

// DemandOf sums the pods' requests as the scheduler counts them (init containers and overhead
// included).
func DemandOf(ps []*corev1.Pod) Demand {
	var d Demand
	for _, p := range ps {
		d.Add(pods.Requests(p))
	}
	return d
}

// Add counts one pod's requests (pods.Requests) in the demand.
func (d *Demand) Add(req corev1.ResourceList) {
	d.CPU += req.Cpu().AsApproximateFloat64() * 1000 // floats: MilliValue wraps past int64
	d.Memory += req.Memory().AsApproximateFloat64()
}

// LowerBound is what no fleet of np's nodes holding the demand can cost less than (the
// scheduling issue's bound): the larger of the demand's CPU and its memory priced at
// UnitPrices. It prices CPU and memory at different types while a node buys both, so a demand of
// mixed shapes stays well above it; FractionalOptimum is the tighter bound.
func LowerBound(d Demand, np scheduling.NodePool) float64 {
	if d.CPU == 0 && d.Memory == 0 {
		return 0
	}
	perMilliCPU, perByte := UnitPrices(np)
	return math.Max(d.CPU*perMilliCPU, d.Memory*perByte)
}

// UnitPrices are the cheapest price per allocatable millicore and per allocatable byte among the
// offerings np allows (+Inf when it allows none).
func UnitPrices(np scheduling.NodePool) (perMilliCPU, perByte float64) {
	perMilliCPU, perByte = math.Inf(1), math.Inf(1)
	for _, o := range poolOfferings(np) {
		perMilliCPU = math.Min(perMilliCPU, o.price/o.cpu)
		perByte = math.Min(perByte, o.price/o.mem)
	}
	return perMilliCPU, perByte
}

// FractionalOptimum is the cheapest fleet of np's nodes could be if pods could be cut into
// pieces: the cheapest mix of instance types (each at its cheapest offering np allows) whose
// allocatable CPU and memory cover the demand. With two resources an optimal mix needs at most
// two types, so every type and pair is tried. No real fleet is cheaper.
func FractionalOptimum(d Demand, np scheduling.NodePool) float64 {
	if d.CPU == 0 && d.Memory == 0 {
		return 0
	}
	types := poolOfferings(np)
	best := math.Inf(1)
	for i, a := range types {
		best = math.Min(best, a.price*math.Max(d.CPU/a.cpu, d.Memory/a.mem))
		for _, b := range types[i+1:] {
			det := a.cpu*b.mem - a.mem*b.cpu
			if det == 0 {
				continue
			}
			// Both resources exactly covered by x nodes of a and y of b.
			x, y := (d.CPU*b.mem-d.Memory*b.cpu)/det, (a.cpu*d.Memory-a.mem*d.CPU)/det
			if x >= 0 && y >= 0 {
				best = math.Min(best, x*a.price+y*b.price)
			}
		}
	}
	return best
}

type pricedType struct{ price, cpu, mem float64 }

// poolOfferings lists each instance type np allows at its cheapest available offering np
// allows, with its allocatable millicores and bytes.
func poolOfferings(np scheduling.NodePool) []pricedType {
	var out []pricedType
	for _, it := range np.InstanceTypes {
		if it.Requirements.Intersects(np.Requirements) != nil {
			continue
		}
		price := math.Inf(1)
		for _, o := range it.Offerings.Compatible(np.Requirements) {
			price = math.Min(price, o.Price)
		}
		alloc := it.Allocatable()
		if cpu, mem := alloc.Cpu().AsApproximateFloat64()*1000, alloc.Memory().AsApproximateFloat64(); !math.IsInf(price, 1) && cpu > 0 && mem > 0 {
			out = append(out, pricedType{price, cpu, mem})
		}
	}
	return out
}
