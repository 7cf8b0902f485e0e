package disruption

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
