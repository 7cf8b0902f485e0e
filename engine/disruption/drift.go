package disruption

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

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
