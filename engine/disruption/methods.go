package disruption

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/scheduling"
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
	taken := map[string]int{}
	var out []*Candidate
	for _, c := range cs {
		a := p.allowance(c, reason)
		if taken[c.NodePool.Name] >= a.Allowed {
			p.block(c, &block{reason: BlockedBudget, message: a.String(), until: a.Until})
			continue
		}
		taken[c.NodePool.Name]++
		out = append(out, c)
	}
	return out
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

// emptiness deletes consolidatable nodes that run no pod that must move, as many as budgets allow.
func (p *pass) emptiness() *Command {
	var empty []*Candidate
	for _, c := range p.candidates {
		if len(c.Reschedulable) == 0 && p.consolidatable(c) {
			empty = append(empty, c)
		}
	}
	p.eligible(MethodEmptiness, len(empty))
	empty = p.withinBudget(empty, karpv1.DisruptionReasonEmpty)
	if len(empty) == 0 {
		return nil
	}
	return newCommand(MethodEmptiness, karpv1.DisruptionReasonEmpty, empty)
}

// drift replaces drifted nodes: the empty ones all at once within budgets, else the cheapest to
// disrupt whose pods can move, with as many replacements as they need.
func (p *pass) drift() *Command {
	var static, empty, busy []*Candidate
	for _, c := range p.candidates {
		if !meta.IsStatusConditionTrue(c.NodeClaim.Status.Conditions, karpv1.ConditionTypeDrifted) {
			continue
		}
		switch {
		case c.NodePool.IsStatic():
			static = append(static, c)
		case len(c.Reschedulable) == 0:
			empty = append(empty, c)
		default:
			busy = append(busy, c)
		}
	}
	p.eligible(MethodDrift, len(static)+len(empty)+len(busy))
	if cmd := p.staticDrift(static); cmd != nil {
		return cmd
	}
	if empty = p.withinBudget(empty, karpv1.DisruptionReasonDrifted); len(empty) > 0 {
		return newCommand(MethodDrift, karpv1.DisruptionReasonDrifted, empty)
	}
	for _, c := range p.withinBudget(busy, karpv1.DisruptionReasonDrifted) {
		replacements, blk := p.sim.place([]*Candidate{c})
		if blk != nil {
			p.block(c, blk)
			continue
		}
		cmd := &Command{Method: MethodDrift, Reason: karpv1.DisruptionReasonDrifted, Candidates: []*Candidate{c},
			Replacements: replacements, PriceBefore: c.Price}
		for _, r := range replacements {
			cmd.PriceAfter += r.PricePerHour()
		}
		return cmd
	}
	return nil
}

// staticDrift replaces a drifted node of a static NodePool with a NodeClaim from its template,
// one for one, as Karpenter does: not while the NodePool is scaling down, and not past its
// limits.nodes.
func (p *pass) staticDrift(cands []*Candidate) *Command {
	for _, c := range p.withinBudget(cands, karpv1.DisruptionReasonDrifted) {
		np, claims := c.NodePool, p.sim.snap.ClaimsOf(c.NodePool.Name)
		switch {
		case int64(len(claims.Running)+len(claims.Disrupting)) > *np.Spec.Replicas:
			p.block(c, &block{reason: BlockedStatic, message: fmt.Sprintf("static nodepool %q is scaling down to %d replicas", np.Name, *np.Spec.Replicas)})
			continue
		case claims.Room(np) == 0:
			p.block(c, &block{reason: BlockedStatic, message: fmt.Sprintf("static nodepool %q is at its limits.nodes: no room for a replacement", np.Name)})
			continue
		}
		var r *scheduling.NodeClaim
		if pt := p.sim.cat.Pools[np.Name]; pt != nil {
			r = scheduling.StaticNodeClaim(np, pt.Types, p.sim.snap.DaemonSets, p.sim.wellKnown)
		}
		if r == nil {
			p.block(c, &block{reason: BlockedStatic, message: fmt.Sprintf("no instance type of static nodepool %q has an available offering", np.Name)})
			continue
		}
		return &Command{Method: MethodDrift, Reason: karpv1.DisruptionReasonDrifted, Candidates: []*Candidate{c},
			Replacements: []*scheduling.NodeClaim{r}, PriceBefore: c.Price, PriceAfter: r.PricePerHour()}
	}
	return nil
}

// underutilized lists the candidates consolidation may consider, cheapest to disrupt first.
func (p *pass) underutilized() []*Candidate {
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
	sortByCost(out)
	p.eligible(MethodSingleNode, len(out))
	return p.withinBudget(out, karpv1.DisruptionReasonUnderutilized)
}

// multiNode finds the largest prefix of up to multiMax candidates (at least two) whose removal
// lowers the bill, by binary search over the prefix length, as Karpenter does. Once the emptiest
// nodes are gone a prefix soon holds a node whose pods fit nowhere, so it searches a second list
// too: the candidates that single-node consolidation found could go without a replacement. It
// returns whichever saves more, and measures the move it found, or else the last it rejected.
func (p *pass) multiNode(cands []*Candidate, singles map[*Candidate]*Command) *Command {
	var deletable []*Candidate
	for _, c := range cands {
		if cmd := singles[c]; cmd != nil && len(cmd.Replacements) == 0 {
			deletable = append(deletable, c)
		}
	}
	best, rejected := p.largestPrefix(cands)
	if other, alsoRejected := p.largestPrefix(deletable); other.cmd != nil && (best.cmd == nil || other.cmd.Savings() > best.cmd.Savings()) {
		best = other
	} else if alsoRejected.scores != nil {
		rejected = alsoRejected
	}
	switch {
	case best.cmd != nil:
		p.measureMove(best.cmd.Candidates, best.scores, true)
	case rejected.scores != nil:
		p.measureMove(rejected.cands, rejected.scores, false)
	}
	return best.cmd
}

// weighed is a consolidation move and its Balanced scores.
type weighed struct {
	cmd    *Command
	cands  []*Candidate
	scores []poolScore
}

// largestPrefix returns the largest prefix's move, and the last move the Balanced bar rejected.
func (p *pass) largestPrefix(cands []*Candidate) (best, rejected weighed) {
	hi := min(len(cands), p.multiMax)
	lo := 2
	for lo <= hi {
		mid := (lo + hi) / 2
		cmd, scores, _ := p.consolidate(MethodMultiNode, cands[:mid])
		switch {
		case cmd != nil:
			best, lo = weighed{cmd: cmd, cands: cands[:mid], scores: scores}, mid+1
			continue
		case scores != nil:
			rejected = weighed{cands: cands[:mid], scores: scores}
		}
		hi = mid - 1
	}
	return best, rejected
}

// singleNode tries each candidate alone, cheapest to disrupt first: it returns what removing
// each would do, and the first that lowers the bill. Every candidate that cannot go keeps why.
func (p *pass) singleNode(cands []*Candidate) (map[*Candidate]*Command, *Command) {
	results := map[*Candidate]*Command{}
	var first *Command
	for _, c := range cands {
		cmd, scores, blk := p.consolidate(MethodSingleNode, []*Candidate{c})
		if cmd != nil || scores != nil { // a move was found, and weighed
			p.measureMove([]*Candidate{c}, scores, cmd != nil)
		}
		if blk != nil {
			p.block(c, blk)
			continue
		}
		results[c] = cmd
		if first == nil {
			first = cmd
		}
	}
	return results, first
}
