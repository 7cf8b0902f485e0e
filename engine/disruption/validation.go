package disruption

import (
	"fmt"
	"time"

	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
)

// validate checks a consolidation decision again once ValidationDelay passed: the candidates
// must still be candidates within budget, and the decision must still hold (same kind of result,
// at no higher price). It returns the decision recomputed on the fresh state, or why it no longer
// holds. decided is what the deciding pass saw: when the cluster and the offerings are still
// that, the simulation would find the same move, and is not run again.
func (c *Controller) validate(snap *state.Snapshot, cat *provisioning.Catalog, cmd *Command, decided seen, now time.Time) (*Command, string) {
	p := c.newPass(snap, cat, now)
	byName := map[string]*Candidate{}
	for _, cand := range p.candidates {
		byName[cand.Name()] = cand
	}
	var fresh []*Candidate
	for _, old := range cmd.Candidates {
		cand, ok := byName[old.Name()]
		if !ok {
			why := "it is no longer a candidate"
			if b := p.blocks[old.Name()]; b != nil {
				why = b.message
			}
			return nil, fmt.Sprintf("node %s: %s", old.Name(), why)
		}
		if !p.consolidatable(cand) {
			return nil, fmt.Sprintf("node %s: %s", cand.Name(), p.blocks[cand.Name()].message)
		}
		fresh = append(fresh, cand)
	}
	if within := p.withinBudget(fresh, cmd.Reason); len(within) < len(fresh) {
		return nil, "the disruption budget no longer allows it: " + p.blocks[fresh[len(within)].Name()].message
	}
	if cmd.Method == MethodEmptiness {
		for _, cand := range fresh {
			if len(cand.Reschedulable) > 0 {
				return nil, fmt.Sprintf("node %s is no longer empty (%d pods)", cand.Name(), len(cand.Reschedulable))
			}
		}
		return &Command{Method: cmd.Method, Reason: cmd.Reason, Candidates: fresh, PriceBefore: cmd.PriceBefore,
			Validated: "validated: the nodes are still empty"}, ""
	}
	if decided.same(snap, cat) {
		// Simulating again would find the same move: on a quiet cluster, the common case,
		// that is time spent for nothing.
		again := *cmd
		again.Candidates = fresh
		again.Validated = "validated: the cluster and the offerings are as when it was decided, so the same move stands"
		return &again, ""
	}
	again, _, blk := p.consolidate(cmd.Method, fresh)
	switch {
	case blk != nil:
		return nil, blk.message
	case len(again.Replacements) != len(cmd.Replacements):
		return nil, fmt.Sprintf("it now needs %d replacement(s) instead of %d", len(again.Replacements), len(cmd.Replacements))
	case again.PriceAfter > cmd.PriceAfter:
		return nil, fmt.Sprintf("the replacement now costs $%.4f/h instead of $%.4f/h", again.PriceAfter, cmd.PriceAfter)
	}
	again.Validated = "validated: the move simulated again on the cluster as it is now"
	return again, ""
}
