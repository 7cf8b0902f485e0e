package disruption

import (
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

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
