package disruption

// singleNode tries each candidate alone, in sortForConsolidation's order: it returns what removing
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
			p.stuck[c.Name()] = c.ConsolidatableAt
			continue
		}
		delete(p.stuck, c.Name())
		results[c] = cmd
		if first == nil {
			first = cmd
		}
	}
	return results, first
}
