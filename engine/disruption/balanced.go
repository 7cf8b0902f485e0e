package disruption

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// balancedK sets the Balanced policy's bar: a move passes when the share of its NodePool's cost
// it saves is at least 1/balancedK of the share of the NodePool's disruption it causes
// (Karpenter's k).
const balancedK = 2

// nodeDisruption is the base cost of draining any node (cordon, drain, replacement latency), to
// which each pod moved adds its eviction cost.
const nodeDisruption = 1.0

// poolTotals are what a Balanced NodePool's moves are measured against: what all its nodes cost
// per hour, and what disrupting all of them would cost.
type poolTotals struct {
	cost, disruption float64
}

// rescheduleCost is what draining a node costs under Balanced: the base, plus each pod's eviction
// cost where positive.
func rescheduleCost(ps []*corev1.Pod) float64 {
	c := nodeDisruption
	for _, p := range ps {
		c += math.Max(0, evictionCost(p))
	}
	return c
}

// balancedTotals sums, per Balanced NodePool, the price and the drain cost of each of its nodes
// (candidate or not; a node of unknown price adds no cost).
func balancedTotals(snap *state.Snapshot, cat *provisioning.Catalog) map[string]poolTotals {
	out := map[string]poolTotals{}
	for _, sn := range snap.Nodes {
		np := snap.NodePool(sn.NodePool())
		if !sn.Managed() || np == nil || np.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyBalanced {
			continue
		}
		t := out[np.Name]
		if _, _, _, p, ok := price(sn, np, cat); ok {
			t.cost += p
		}
		var moved []*corev1.Pod
		for _, p := range sn.Pods {
			if pods.IsEvictable(p) && !pods.IsOwnedByDaemonSet(p) {
				moved = append(moved, p)
			}
		}
		t.disruption += rescheduleCost(moved)
		out[np.Name] = t
	}
	return out
}

// balancedScore is a move's score for one NodePool: the share of its cost saved over the share
// of its disruption caused. A move that saves nothing scores 0; one that disrupts nothing
// measurable passes.
func balancedScore(savings, disruption float64, t poolTotals) float64 {
	if t.cost <= 0 || t.disruption <= 0 {
		return math.Inf(1) // nothing to measure against
	}
	if savings <= 0 {
		return 0
	}
	if disruption <= 0 {
		return math.Inf(1)
	}
	return (savings / t.cost) / (disruption / t.disruption)
}

// balancedVerdict says why a consolidation command fails a Balanced NodePool's bar, or "" when
// it passes (commands touching only other policies always pass), and then, in approved, each
// Balanced NodePool's score against the bar as Karpenter's ConsolidationApproved event says it.
// A command over several NodePools credits each with the savings in proportion to its
// candidates' price.
func (p *pass) balancedVerdict(cmd *Command) (why string, approved []string) {
	byPool := map[string][]*Candidate{}
	pools := map[string]bool{}
	var order []string
	for _, c := range cmd.Candidates {
		pools[c.NodePool.Name] = true
		if c.NodePool.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyBalanced {
			continue
		}
		if _, seen := byPool[c.NodePool.Name]; !seen {
			order = append(order, c.NodePool.Name)
		}
		byPool[c.NodePool.Name] = append(byPool[c.NodePool.Name], c)
	}
	for _, pool := range order {
		var poolPrice, disruption float64
		for _, c := range byPool[pool] {
			poolPrice += c.Price
			disruption += rescheduleCost(c.Reschedulable)
		}
		savings := cmd.Savings()
		if cmd.PriceBefore > 0 && len(pools) > 1 {
			savings *= poolPrice / cmd.PriceBefore
		}
		t := p.totals[pool]
		score := balancedScore(savings, disruption, t)
		if score < 1.0/balancedK {
			return fmt.Sprintf("nodepool %q is Balanced and this move scores %.2f, under %.2f: it saves %.1f%% of the nodepool's cost for %.1f%% of its disruption",
				pool, score, 1.0/balancedK, 100*savings/t.cost, 100*disruption/t.disruption), nil
		}
		approved = append(approved, fmt.Sprintf("score %.2f >= threshold %.2f (k: %d, savings %.1f%%, disruption %.1f%%)",
			score, 1.0/balancedK, balancedK, 100*savings/t.cost, 100*disruption/t.disruption))
	}
	return "", approved
}

// consolidate is the simulator's consolidate held to the Balanced bar.
func (p *pass) consolidate(method string, cands []*Candidate) (*Command, *block) {
	cmd, blk := p.sim.consolidate(method, cands, p.spotToSpot)
	if blk != nil {
		return nil, blk
	}
	why, approved := p.balancedVerdict(cmd)
	if why != "" {
		return nil, &block{reason: BlockedPolicy, message: why}
	}
	cmd.Approved = strings.Join(approved, "; ")
	return cmd, nil
}
