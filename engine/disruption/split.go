package disruption

import (
	"fmt"

	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// split simulates replacing one node by several packed for cost, and returns the command when it
// saves at least splitSaving of the node's price, else why not ("" when its pods need one node).
func (s *simulator) split(cands []*Candidate, spotToSpot bool) (*Command, string) {
	if s.forCost == nil {
		c := *s
		c.opts.Packing, c.prepared, c.nodes, c.spread = scheduling.PackingCost, nil, nil, nil
		s.forCost = &c
	}
	replacements, blk := s.forCost.place(cands)
	switch {
	case blk != nil:
		return nil, "a split replacement: " + blk.message
	case len(replacements) < 2:
		return nil, ""
	}
	cmd := newCommand(MethodSingleNode, karpv1.DisruptionReasonUnderutilized, cands)
	for _, r := range replacements {
		cheaper, blk := cheaperReplacement(r, cands, cmd.PriceBefore, spotToSpot)
		if blk != nil {
			return nil, "a split replacement: " + blk.message
		}
		cmd.Replacements = append(cmd.Replacements, cheaper)
		cmd.PriceAfter += cheaper.PricePerHour()
	}
	if saved := 1 - cmd.PriceAfter/cmd.PriceBefore; saved < s.splitSaving {
		return nil, fmt.Sprintf("split into %d nodes it would cost $%.4f/h, saving %.0f%%, less than the %.0f%% a split needs",
			len(cmd.Replacements), cmd.PriceAfter, 100*saved, 100*s.splitSaving)
	}
	return cmd, ""
}
