package disruption

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// pass is the working state of one disruption pass.
type pass struct {
	now        time.Time
	sim        *simulator
	spotToSpot bool
	multiMax   int
	candidates []*Candidate
	// blocks says, per node, why the pass did not disrupt it.
	blocks     map[string]*block
	allowances map[string]Allowance
	// totals are the Balanced NodePools' cost and disruption, which their moves are held to.
	totals map[string]poolTotals
	// measures are the figures the pass took, for metrics.
	measures []journal.Measurement
	// stuck are the candidates single-node consolidation found no move for, by node, with their
	// ConsolidatableAt then (it changes with their pods): from earlier passes, and updated by
	// this one's single-node consolidation.
	stuck map[string]time.Time
	// forSingle and forMulti are the candidates single-node and multi-node consolidation
	// considered; settled is what the last pass that found no move saw, and skipped says this
	// pass found the cluster as it was then and simulated nothing.
	forSingle, forMulti []*Candidate
	settled             *settled
	skipped             bool
}

// timed runs a disruption method and measures how long it took.
func (p *pass) timed(method string, f func() *Command) *Command {
	start := time.Now() // computing time, on the wall clock whatever clock the engine runs on
	cmd := f()
	p.measures = append(p.measures, journal.Measurement{Measure: journal.MeasureEvaluation, Method: method, Value: time.Since(start).Seconds()})
	return cmd
}

// eligible measures how many nodes a method could consider, before budgets.
func (p *pass) eligible(method string, n int) {
	p.measures = append(p.measures, journal.Measurement{Measure: journal.MeasureEligibleNodes, Method: method, Value: float64(n)})
}

func (p *pass) allowance(c *Candidate, reason karpv1.DisruptionReason) Allowance {
	key := c.NodePool.Name + "/" + string(reason)
	if a, ok := p.allowances[key]; ok {
		return a
	}
	a := AllowanceFor(c.NodePool, p.sim.snap.Nodes, reason, p.now)
	p.allowances[key] = a
	return a
}

// withinBudget keeps the candidates each NodePool's budget for reason allows, in order, and
// blocks the rest.
func (p *pass) withinBudget(cs []*Candidate, reason karpv1.DisruptionReason) []*Candidate {
	in, over := p.budgetCut(cs, reason)
	p.blockOverBudget(over, reason)
	return in
}

// budgetCut splits the candidates into those each NodePool's budget for reason allows, in order,
// and the rest.
func (p *pass) budgetCut(cs []*Candidate, reason karpv1.DisruptionReason) (in, over []*Candidate) {
	taken := map[string]int{}
	for _, c := range cs {
		if taken[c.NodePool.Name] >= p.allowance(c, reason).Allowed {
			over = append(over, c)
			continue
		}
		taken[c.NodePool.Name]++
		in = append(in, c)
	}
	return in, over
}

// blockOverBudget blocks candidates that their NodePools' budgets for reason leave out.
func (p *pass) blockOverBudget(cs []*Candidate, reason karpv1.DisruptionReason) {
	for _, c := range cs {
		a := p.allowance(c, reason)
		p.block(c, &block{reason: BlockedBudget, message: a.String(), until: a.Until})
	}
}

func (p *pass) block(c *Candidate, b *block) {
	if _, done := p.blocks[c.Name()]; !done {
		p.blocks[c.Name()] = b
	}
}

// consolidatable reports whether consolidation may consider the candidate now, blocking it when not.
func (p *pass) consolidatable(c *Candidate) bool {
	d := c.NodePool.Spec.Disruption
	switch {
	case c.NodePool.IsStatic():
		p.block(c, staticBlock(c))
		return false
	case d.ConsolidateAfter.Never:
		p.block(c, &block{reason: BlockedPolicy, message: fmt.Sprintf("nodepool %q has consolidateAfter: Never", c.NodePool.Name)})
		return false
	case p.now.Before(c.ConsolidatableAt):
		p.block(c, &block{reason: BlockedConsolidateAfter, until: c.ConsolidatableAt,
			message: fmt.Sprintf("consolidateAfter %s has not passed since its last pod change", d.ConsolidateAfter.String())})
		return false
	}
	return true
}

// staticBlock is why a static NodePool's node is not consolidated: the NodePool keeps its count.
func staticBlock(c *Candidate) *block {
	return &block{reason: BlockedStatic, message: fmt.Sprintf("nodepool %q is static (replicas: %d): its nodes are never consolidated, only replaced when drifted",
		c.NodePool.Name, *c.NodePool.Spec.Replicas)}
}

// underutilized lists the candidates consolidation may consider, and cuts two lists from them
// within the budget for Underutilized: for multi-node consolidation in sortForConsolidation's
// order, and for single-node consolidation in the same order with the candidates it found stuck
// last. Multi-node consolidation keeps them in place: a stuck node may still go with others onto
// one replacement. Candidates neither list holds are blocked.
func (p *pass) underutilized() (single, multi []*Candidate) {
	var out []*Candidate
	for _, c := range p.candidates {
		if c.NodePool.IsStatic() {
			p.block(c, staticBlock(c))
			continue
		}
		if c.NodePool.Spec.Disruption.ConsolidationPolicy == karpv1.ConsolidationPolicyWhenEmpty {
			if len(c.Reschedulable) > 0 {
				p.block(c, &block{reason: BlockedPolicy, message: fmt.Sprintf("nodepool %q consolidates only empty nodes (WhenEmpty) and this one runs %d pod(s)",
					c.NodePool.Name, len(c.Reschedulable))})
			}
			continue
		}
		if p.consolidatable(c) {
			out = append(out, c)
		}
	}
	p.eligible(MethodSingleNode, len(out))
	reason := karpv1.DisruptionReasonUnderutilized
	ratio := valueRatios(out, p.sim.snap.Requests)
	sortForConsolidation(out, ratio, nil)
	multi, _ = p.budgetCut(out, reason)
	inMulti := make(map[*Candidate]bool, len(multi))
	for _, c := range multi {
		inMulti[c] = true
	}
	sortForConsolidation(out, ratio, p.stuck)
	single, over := p.budgetCut(out, reason)
	p.blockOverBudget(slices.DeleteFunc(over, func(c *Candidate) bool { return inMulti[c] }), reason)
	return single, multi
}

func (c *Controller) newPass(snap *state.Snapshot, cat *provisioning.Catalog, now time.Time) *pass {
	p := &pass{now: now, spotToSpot: c.opts.SpotToSpot, multiMax: c.opts.MultiNodeMax, blocks: map[string]*block{}, allowances: map[string]Allowance{},
		totals: balancedTotals(snap, cat),
		sim:    newSimulator(snap, cat, c.opts, &c.cache)}
	pdbs := newPDBIndex(snap.PDBs)
	for _, sn := range snap.Nodes {
		if !sn.Managed() {
			continue
		}
		cand, blk := candidate(sn, snap, cat, pdbs, now)
		if blk != nil {
			p.blocks[sn.Name()] = blk
			continue
		}
		p.candidates = append(p.candidates, cand)
	}
	sortByCost(p.candidates)
	p.stuck = map[string]time.Time{}
	last := c.Stuck()
	for _, cand := range p.candidates {
		if at, ok := last[cand.Name()]; ok && at.Equal(cand.ConsolidatableAt) {
			p.stuck[cand.Name()] = at
		}
	}
	return p
}

// decide runs the methods in Karpenter's order and returns the first command found.
func (p *pass) decide() *Command {
	if cmd := p.timed(MethodEmptiness, p.emptiness); cmd != nil {
		return cmd
	}
	if cmd := p.timed(MethodDrift, p.drift); cmd != nil {
		return cmd
	}
	var singles map[*Candidate]*Command
	single := p.timed(MethodSingleNode, func() *Command {
		var first *Command
		p.forSingle, p.forMulti = p.underutilized()
		if p.settled.holds(p.sim.snap, p.sim.cat, p.now, p.forSingle, p.forMulti) {
			maps.Copy(p.blocks, p.settled.blocks)
			p.skipped = true
			return nil
		}
		singles, first = p.singleNode(p.forSingle)
		return first
	})
	if p.skipped {
		return nil
	}
	if cmd := p.timed(MethodMultiNode, func() *Command { return p.multiNode(p.forMulti, singles) }); cmd != nil {
		return cmd
	}
	return single
}
