package disruption

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodepilot/nodepilot/engine/cost"
)

// valueStep is the width of a value class: nodes whose instance types would serve their
// NodePool's pods within 10% of each other's cost are one class, ordered by disruption cost alone.
const valueStep = 0.1

// sortForConsolidation orders consolidation's candidates: the nodes of the instance types that are
// the poorest value for their NodePool's pods first, then, within a value class, cheapest to
// disrupt first (Karpenter's order, which is the whole order when a NodePool's nodes are of one
// value). Karpenter's order alone removes the emptiest nodes whatever their type, so after a
// workload shrinks the fleet keeps the types the old workload happened to need: in the halved
// fleet of TestConsolidationAfterTheWorkloadHalves, memory-optimized nodes for pods that now fit
// general-purpose ones, 1.23x the fractional optimum where this order ends at 1.15x.
func sortForConsolidation(cs []*Candidate) {
	class := valueClasses(cs)
	slices.SortStableFunc(cs, func(a, b *Candidate) int {
		return cmp.Or(cmp.Compare(class[b], class[a]), cmp.Compare(a.DisruptionCost, b.DisruptionCost), cmp.Compare(a.Name(), b.Name()))
	})
}

// valueClasses rates each candidate by what nodes like it would cost to serve all the pods its
// NodePool's candidates must move (its price times as many of its allocatable as the scarcer
// resource needs), against the NodePool's best candidate: class 0 is within valueStep of the
// best, class 1 within twice that, and so on. A NodePool whose candidates move no pods, or whose
// best serves them for nothing, is one class.
func valueClasses(cs []*Candidate) map[*Candidate]int {
	demand := map[string]cost.Demand{}
	for _, c := range cs {
		d, pool := cost.DemandOf(c.Reschedulable), demand[c.NodePool.Name]
		pool.CPU += d.CPU
		pool.Memory += d.Memory
		demand[c.NodePool.Name] = pool
	}
	serving := make(map[*Candidate]float64, len(cs))
	best := map[string]float64{}
	for _, c := range cs {
		d := demand[c.NodePool.Name]
		alloc := c.InstanceType.Allocatable()
		cpu, mem := alloc.Cpu().AsApproximateFloat64()*1000, alloc.Memory().AsApproximateFloat64()
		s := math.Inf(1)
		if cpu > 0 && mem > 0 {
			s = c.Price * math.Max(d.CPU/cpu, d.Memory/mem)
		}
		serving[c] = s
		if b, ok := best[c.NodePool.Name]; !ok || s < b {
			best[c.NodePool.Name] = s
		}
	}
	class := make(map[*Candidate]int, len(cs))
	for _, c := range cs {
		b := best[c.NodePool.Name]
		if b <= 0 || math.IsInf(b, 1) {
			continue
		}
		class[c] = int(math.Min((serving[c]/b-1)/valueStep, math.MaxInt32))
	}
	return class
}
