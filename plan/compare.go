package plan

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// Comparison is what changes from plan A to plan B: the shape of `plan --compare -o json|yaml`.
type Comparison struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// NodePools are the NodePools of either plan, by name.
	NodePools []PoolChange `json:"nodePools"`
	// UnschedulableOnlyInA and UnschedulableOnlyInB are the pods one plan cannot place and the
	// other can (or does not have).
	UnschedulableOnlyInA []string `json:"unschedulableOnlyInA"`
	UnschedulableOnlyInB []string `json:"unschedulableOnlyInB"`
}

// Side is one plan of a comparison and its totals.
type Side struct {
	Source        string  `json:"source"`
	NewNodes      int     `json:"newNodes"`
	PricePerHour  float64 `json:"pricePerHour"`
	Unschedulable int     `json:"unschedulable"`
	Plan          *Plan   `json:"plan"`
}

// PoolChange is one NodePool in both plans: the nodes it would launch, their $/h, and whether
// its limits refused pods.
type PoolChange struct {
	NodePool       string  `json:"nodePool"`
	NodesA         int     `json:"nodesA"`
	NodesB         int     `json:"nodesB"`
	PricePerHourA  float64 `json:"pricePerHourA"`
	PricePerHourB  float64 `json:"pricePerHourB"`
	LimitsReachedA bool    `json:"limitsReachedA"`
	LimitsReachedB bool    `json:"limitsReachedB"`
}

// Compare sets plan a (of source nameA) against plan b.
func Compare(nameA string, a *Plan, nameB string, b *Plan) *Comparison {
	side := func(name string, p *Plan) Side {
		return Side{Source: name, NewNodes: len(p.NodeClaims), PricePerHour: p.TotalPricePerHour, Unschedulable: len(p.Unschedulable), Plan: p}
	}
	c := &Comparison{A: side(nameA, a), B: side(nameB, b), NodePools: []PoolChange{}}
	pools := map[string]*PoolChange{}
	pool := func(name string) *PoolChange {
		if pools[name] == nil {
			pools[name] = &PoolChange{NodePool: name}
		}
		return pools[name]
	}
	for _, nc := range a.NodeClaims {
		pc := pool(nc.NodePool)
		pc.NodesA++
		pc.PricePerHourA = roundCents(pc.PricePerHourA + nc.PricePerHour)
	}
	for _, nc := range b.NodeClaims {
		pc := pool(nc.NodePool)
		pc.NodesB++
		pc.PricePerHourB = roundCents(pc.PricePerHourB + nc.PricePerHour)
	}
	for _, l := range a.Limits {
		pool(l.NodePool).LimitsReachedA = l.Reached
	}
	for _, l := range b.Limits {
		pool(l.NodePool).LimitsReachedB = l.Reached
	}
	for _, name := range slices.Sorted(maps.Keys(pools)) {
		c.NodePools = append(c.NodePools, *pools[name])
	}
	c.UnschedulableOnlyInA, c.UnschedulableOnlyInB = onlyIn(a, b), onlyIn(b, a)
	return c
}

// onlyIn lists the pods p cannot place that other places or does not have.
func onlyIn(p, other *Plan) []string {
	elsewhere := map[string]bool{}
	for _, u := range other.Unschedulable {
		elsewhere[u.Pod] = true
	}
	out := []string{}
	for _, u := range p.Unschedulable {
		if !elsewhere[u.Pod] {
			out = append(out, u.Pod)
		}
	}
	slices.Sort(out)
	return out
}

// maxListed bounds the pods a comparison's table names; JSON and YAML list them all.
const maxListed = 20

// RenderComparison writes c as a table, JSON or YAML.
func RenderComparison(w io.Writer, c *Comparison, format string) error {
	return write(w, c, format, func() error { return comparisonTable(w, c) })
}

func comparisonTable(w io.Writer, c *Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\tA: %s\tB: %s\tCHANGE\n", c.A.Source, c.B.Source)
	fmt.Fprintf(tw, "new nodes\t%d\t%d\t%+d\n", c.A.NewNodes, c.B.NewNodes, c.B.NewNodes-c.A.NewNodes)
	fmt.Fprintf(tw, "$/hour\t%s\t%s\t%s\n", dollars(c.A.PricePerHour), dollars(c.B.PricePerHour), signedDollars(c.B.PricePerHour-c.A.PricePerHour))
	fmt.Fprintf(tw, "unschedulable pods\t%d\t%d\t%+d\n", c.A.Unschedulable, c.B.Unschedulable, c.B.Unschedulable-c.A.Unschedulable)
	if len(c.NodePools) > 0 {
		fmt.Fprintln(tw, "\nNODEPOOL\tNODES A\tNODES B\t$/HOUR A\t$/HOUR B\tLIMITS")
		for _, pc := range c.NodePools {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", pc.NodePool, pc.NodesA, pc.NodesB, dollars(pc.PricePerHourA), dollars(pc.PricePerHourB),
				limitsChange(pc.LimitsReachedA, pc.LimitsReachedB))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, list := range []struct {
		side string
		pods []string
	}{{"A", c.UnschedulableOnlyInA}, {"B", c.UnschedulableOnlyInB}} {
		if len(list.pods) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nUNSCHEDULABLE IN %s ONLY (%d)\n", list.side, len(list.pods))
		for _, p := range list.pods[:min(len(list.pods), maxListed)] {
			fmt.Fprintf(w, "  %s\n", p)
		}
		if more := len(list.pods) - maxListed; more > 0 {
			fmt.Fprintf(w, "  ... and %d more (-o json lists them all)\n", more)
		}
	}
	if c.A.Plan.SyntheticPrices || c.B.Plan.SyntheticPrices {
		fmt.Fprintln(w, "\nspot prices are synthetic estimates, not AWS quotes")
	}
	return nil
}

func limitsChange(a, b bool) string {
	switch {
	case a && b:
		return "reached in both"
	case a:
		return "reached in A only"
	case b:
		return "reached in B only"
	}
	return "-"
}

func signedDollars(v float64) string {
	if v < 0 {
		return "-" + dollars(-v)
	}
	return "+" + dollars(v)
}
