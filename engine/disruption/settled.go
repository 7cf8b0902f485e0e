package disruption

import (
	"hash/maphash"
	"maps"
	"slices"
	"time"

	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
)

// settledFor is how long a pass's finding that no consolidation move pays stands while neither
// the cluster nor the instance types change: Karpenter's five minutes, for what neither shows.
const settledFor = 5 * time.Minute

// settled is what a pass that found no consolidation move saw. As Karpenter's consolidation
// state, it spares the next passes the same simulations while nothing changed: on a large fleet
// with nothing to consolidate, each would take a second or more, every ten seconds. Unlike
// Karpenter's, it also sees prices and offerings change (capacity found again, say) at once.
type settled struct {
	seen
	at            time.Time
	single, multi []string // the candidates, in order, single-node and multi-node considered
	blocks        map[string]*block
}

// seen is what a pass's simulations read that may change while its candidates do not: the
// cluster state and what the instance types offer. Two passes with the same candidates that saw
// the same simulate the same moves.
type seen struct {
	version uint64 // the cluster state's ConsolidationVersion
	catalog uint64 // catalogKey of the instance types
}

func seenIn(snap *state.Snapshot, cat *provisioning.Catalog) seen {
	return seen{version: snap.ConsolidationVersion, catalog: catalogKey(cat)}
}

// same reports whether snap and cat are what s saw. The offerings are hashed only once the
// cluster's version matched.
func (s seen) same(snap *state.Snapshot, cat *provisioning.Catalog) bool {
	return s.version == snap.ConsolidationVersion && s.catalog == catalogKey(cat)
}

// holds reports whether a pass over snap at now, with these candidates (what changes with time
// alone, consolidateAfter and budgets, changes them), would find what s found.
func (s *settled) holds(snap *state.Snapshot, cat *provisioning.Catalog, now time.Time, single, multi []*Candidate) bool {
	return s != nil && now.Sub(s.at) < settledFor &&
		slices.Equal(s.single, candidateNames(single)) && slices.Equal(s.multi, candidateNames(multi)) &&
		s.same(snap, cat)
}

// settle records what a pass that found no consolidation move saw, and why it did not move each
// candidate it simulated.
func (p *pass) settle() *settled {
	s := &settled{seen: seenIn(p.sim.snap, p.sim.cat), at: p.now, single: candidateNames(p.forSingle), multi: candidateNames(p.forMulti), blocks: map[string]*block{}}
	for _, name := range append(slices.Clone(s.single), s.multi...) {
		if b, ok := p.blocks[name]; ok {
			s.blocks[name] = b
		}
	}
	return s
}

// catalogKey sums up what the NodePools' instance types offer, at what price and whether
// available, in one number that changes when any of it does.
func catalogKey(cat *provisioning.Catalog) uint64 {
	var h maphash.Hash
	h.SetSeed(catalogSeed)
	for _, name := range slices.Sorted(maps.Keys(cat.Pools)) {
		h.WriteString(name)
		for _, it := range cat.Pools[name].Types {
			h.WriteString(it.Name)
			for _, o := range it.Offerings {
				h.WriteString(o.Zone)
				h.WriteString(o.CapacityType)
				maphash.WriteComparable(&h, o.Price)
				maphash.WriteComparable(&h, o.Available)
			}
		}
	}
	return h.Sum64()
}

var catalogSeed = maphash.MakeSeed()

func candidateNames(cs []*Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name()
	}
	return out
}
