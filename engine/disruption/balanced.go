package disruption

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/journal"
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
			if pods.IsRescheduled(p) {
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

// poolScore is a move's score for one Balanced NodePool.
type poolScore struct {
	pool                          string
	score                         float64
	savingsShare, disruptionShare float64 // of the NodePool's cost and disruption
}

func (s poolScore) passed() bool { return s.score >= 1.0/balancedK }

// approval says it as Karpenter's ConsolidationApproved event does.
func (s poolScore) approval() string {
	return fmt.Sprintf("score %.2f >= threshold %.2f (k: %d, savings %.1f%%, disruption %.1f%%)",
		s.score, 1.0/balancedK, balancedK, 100*s.savingsShare, 100*s.disruptionShare)
}

// balancedVerdict scores a consolidation command for each Balanced NodePool it touches (a
// command over several NodePools credits each with the savings in proportion to its
// candidates' price) and says why it fails one's bar, or "" when it passes (commands touching
// only other policies always pass).
func (p *pass) balancedVerdict(cmd *Command) (why string, scores []poolScore) {
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
		s := poolScore{pool: pool, score: balancedScore(savings, disruption, t), savingsShare: savings / t.cost, disruptionShare: disruption / t.disruption}
		scores = append(scores, s)
		if !s.passed() && why == "" {
			why = fmt.Sprintf("nodepool %q is Balanced and this move scores %.2f, under %.2f: it saves %.1f%% of the nodepool's cost for %.1f%% of its disruption",
				pool, s.score, 1.0/balancedK, 100*s.savingsShare, 100*s.disruptionShare)
		}
	}
	return why, scores
}

// consolidate is the simulator's consolidate held to the Balanced bar. It also returns the
// move's Balanced scores, when the simulation found a move to score.
func (p *pass) consolidate(method string, cands []*Candidate) (*Command, []poolScore, *block) {
	cmd, blk := p.sim.consolidate(method, cands, p.spotToSpot)
	if blk != nil {
		return nil, nil, blk
	}
	why, scores := p.balancedVerdict(cmd)
	if why != "" {
		return nil, scores, &block{reason: BlockedPolicy, message: why}
	}
	approvals := make([]string, len(scores))
	for i, s := range scores {
		approvals[i] = s.approval()
	}
	cmd.Approved = strings.Join(approvals, "; ")
	return cmd, scores, nil
}

// measureMove notes a consolidation move weighed over cands, once per NodePool, as Karpenter
// counts them (every policy's moves), and the score of each Balanced NodePool's share of it,
// with that NodePool's own verdict: a shared move may pass one NodePool's bar and fail another's.
func (p *pass) measureMove(cands []*Candidate, scores []poolScore, approved bool) {
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.NodePool.Name] {
			continue
		}
		seen[c.NodePool.Name] = true
		policy := string(c.NodePool.Spec.Disruption.ConsolidationPolicy)
		p.measures = append(p.measures, journal.Measurement{Measure: journal.MeasureConsolidationMove, NodePool: c.NodePool.Name,
			Policy: policy, Decision: decision(approved)})
		for _, s := range scores {
			if s.pool == c.NodePool.Name {
				p.measures = append(p.measures, journal.Measurement{Measure: journal.MeasureConsolidationScore, NodePool: s.pool,
					Policy: policy, Decision: decision(s.passed()), Value: s.score})
			}
		}
	}
}

func decision(approved bool) string {
	if approved {
		return "approved"
	}
	return "rejected"
}
