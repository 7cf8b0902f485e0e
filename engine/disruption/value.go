package disruption

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

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
// general-purpose ones, 1.18x the fractional optimum where this order ends at 1.14x. The
// candidates in stuck (single-node consolidation found no move for them, and their pods have not
// changed since) go last: budgets let single-node consolidation consider only a NodePool's first
// candidates, and a node that cannot move would otherwise take that place on every pass, where
// Karpenter's single-node consolidation, which considers every candidate, moves on to the next.
// ratio is valueRatios of cs, which the caller computes once for both of its orders.
func sortForConsolidation(cs []*Candidate, ratio map[*Candidate]float64, stuck map[string]time.Time) {
	slices.SortStableFunc(cs, func(a, b *Candidate) int {
		return cmp.Or(compareBool(isStuck(stuck, a), isStuck(stuck, b)), cmp.Compare(valueClass(ratio[b]), valueClass(ratio[a])),
			cmp.Compare(a.DisruptionCost, b.DisruptionCost), cmp.Compare(a.Name(), b.Name()))
	})
}

// isStuck reports whether single-node consolidation found no move for the candidate, and its
// pods have not changed since.
func isStuck(stuck map[string]time.Time, c *Candidate) bool {
	at, ok := stuck[c.Name()]
	return ok && at.Equal(c.ConsolidatableAt)
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// valueClass is a value ratio's class: 0 within valueStep of the best, 1 within twice that...
func valueClass(ratio float64) int { return int(math.Min((ratio-1)/valueStep, math.MaxInt32)) }

// valueRatios rates each candidate by what nodes like it would cost to serve all the pods its
// NodePool's candidates must move (its price times as many of its allocatable as the scarcer
// resource needs), over what the NodePool's best candidate would: 1 for the best. A NodePool
// whose candidates move no pods, or whose best serves them for nothing, rates every candidate 1.
// requests gives the pods' requests (Snapshot.Requests keeps them).
func valueRatios(cs []*Candidate, requests func(*corev1.Pod) corev1.ResourceList) map[*Candidate]float64 {
	demand := map[string]cost.Demand{}
	for _, c := range cs {
		pool := demand[c.NodePool.Name]
		for _, p := range c.Reschedulable {
			pool.Add(requests(p))
		}
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
	ratio := make(map[*Candidate]float64, len(cs))
	for _, c := range cs {
		ratio[c] = 1
		if b := best[c.NodePool.Name]; b > 0 && !math.IsInf(b, 1) {
			ratio[c] = serving[c] / b
		}
	}
	return ratio
}

// orderOf sorts the candidates for consolidation as single-node consolidation does, with the
// stuck record of the last pass, and says where the node named goes, and why.
func orderOf(cands []*Candidate, node string, stuck map[string]time.Time, requests func(*corev1.Pod) corev1.ResourceList) string {
	ratio := valueRatios(cands, requests)
	sortForConsolidation(cands, ratio, stuck)
	i := slices.IndexFunc(cands, func(c *Candidate) bool { return c.Name() == node })
	if i < 0 {
		return ""
	}
	if isStuck(stuck, cands[i]) {
		return fmt.Sprintf("%d of %d candidates: single-node consolidation found no move for it and its pods have not changed since: after the nodes it has not tried",
			i+1, len(cands))
	}
	if r := ratio[cands[i]]; valueClass(r) > 0 {
		return fmt.Sprintf("%d of %d candidates: nodes of its type would cost %.2fx the NodePool's best to hold its pods: before better-value nodes",
			i+1, len(cands), r)
	}
	return fmt.Sprintf("%d of %d candidates: its type is among the NodePool's best value for its pods: Karpenter's order, cheapest to disrupt first",
		i+1, len(cands))
}
