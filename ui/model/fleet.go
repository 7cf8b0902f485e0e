package model

import (
	"slices"
	"time"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// Fleet is what the header shows: counts and the cost of every node.
type Fleet struct {
	Nodes, Pods, Pending int
	// ByCapacityType counts nodes per capacity type ("" for nodes without the label).
	ByCapacityType map[string]int
	PerHour        float64
	// Unpriced counts nodes whose price is unknown (left out of PerHour).
	Unpriced int
	// Sources are the price sources of the priced nodes, sorted by kind; AsOf is the oldest
	// reading among them (zero for built-in tables).
	Sources []string
	AsOf    time.Time
	// Synthetic is true when some price is a synthetic estimate.
	Synthetic bool
}

// priceSources collects what the header says about prices.
type priceSources struct {
	kinds map[string]bool
	asOf  time.Time
}

func (p *priceSources) add(s cloudprovider.PriceSource) {
	if p.kinds == nil {
		p.kinds = map[string]bool{}
	}
	p.kinds[s.Kind] = true
	if !s.AsOf.IsZero() && (p.asOf.IsZero() || s.AsOf.Before(p.asOf)) {
		p.asOf = s.AsOf
	}
}

func (p *priceSources) fill(f *Fleet) {
	for k := range p.kinds {
		f.Sources = append(f.Sources, k)
	}
	slices.Sort(f.Sources)
	f.AsOf = p.asOf
}
