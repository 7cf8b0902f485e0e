package requirements

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Requirements is a conjunction of requirements, at most one per key, kept sorted by key.
// Values are immutable: Add returns a new Requirements and never changes its receiver.
type Requirements struct {
	items []*Requirement
}

// Of builds requirements from individual ones; several on one key are intersected.
func Of(rs ...*Requirement) Requirements {
	var out Requirements
	return out.Add(rs...)
}

// FromLabels turns labels into In requirements of one value each, deprecated keys on their
// current names (a node labelled with both agrees with itself; a pod's nodeSelector on
// failure-domain.beta.kubernetes.io/zone selects topology.kubernetes.io/zone).
func FromLabels(labels map[string]string) Requirements {
	for k := range labels {
		if _, deprecated := normalizedKeys[k]; deprecated {
			rs := make([]*Requirement, 0, len(labels))
			for k, v := range labels {
				rs = append(rs, New(k, corev1.NodeSelectorOpIn, v))
			}
			return Of(rs...)
		}
	}
	items := make([]*Requirement, 0, len(labels))
	for k, v := range labels {
		items = append(items, &Requirement{Key: k, values: []string{v}})
	}
	slices.SortFunc(items, func(a, b *Requirement) int { return strings.Compare(a.Key, b.Key) })
	return Requirements{items: items}
}

// FromNodeSelector turns node selector requirements into requirements.
func FromNodeSelector(reqs []corev1.NodeSelectorRequirement) Requirements {
	rs := make([]*Requirement, 0, len(reqs))
	for _, r := range reqs {
		rs = append(rs, New(r.Key, r.Operator, r.Values...))
	}
	return Of(rs...)
}

// Len is the number of keys constrained.
func (rs Requirements) Len() int { return len(rs.items) }

// Items lists the requirements in key order. The slice is shared: do not modify it.
func (rs Requirements) Items() []*Requirement { return rs.items }

// Get returns the requirement on key, or nil when the key is unconstrained.
func (rs Requirements) Get(key string) *Requirement {
	i, found := rs.find(key)
	if !found {
		return nil
	}
	return rs.items[i]
}

// Has reports whether key is constrained.
func (rs Requirements) Has(key string) bool {
	_, found := rs.find(key)
	return found
}

func (rs Requirements) find(key string) (int, bool) {
	// Linear for the usual handful of keys: faster than a binary search's branches.
	if len(rs.items) <= 8 {
		for i, r := range rs.items {
			if c := strings.Compare(r.Key, key); c >= 0 {
				return i, c == 0
			}
		}
		return len(rs.items), false
	}
	return slices.BinarySearchFunc(rs.items, key, func(r *Requirement, k string) int { return strings.Compare(r.Key, k) })
}

// Add returns rs narrowed by each of add: a new key is appended, an existing one intersected.
func (rs Requirements) Add(add ...*Requirement) Requirements {
	if len(add) == 0 {
		return rs
	}
	items := slices.Clone(rs.items)
	for _, r := range add {
		i, found := Requirements{items: items}.find(r.Key)
		if found {
			items[i] = items[i].Intersection(r)
			continue
		}
		items = slices.Insert(items, i, r)
	}
	return Requirements{items: items}
}

// Merge returns rs narrowed by every requirement of o.
func (rs Requirements) Merge(o Requirements) Requirements { return rs.Add(o.items...) }

// Implies reports whether every value rs allows is allowed by o, so that merging o into rs would
// change nothing. It answers false when it cannot tell cheaply (complements on rs's side).
func (rs Requirements) Implies(o Requirements) bool {
	for _, want := range o.items {
		have := rs.Get(want.Key)
		if have == nil || have.complement || have.hasBounds() || len(have.values) == 0 || have.MinValues != nil {
			return false
		}
		for _, v := range have.values {
			if !want.Has(v) {
				return false
			}
		}
	}
	return true
}

// Labels returns the labels a node satisfying rs would carry: every key with exactly one value.
func (rs Requirements) Labels() map[string]string {
	out := map[string]string{}
	for _, r := range rs.items {
		if !r.complement && len(r.values) == 1 {
			out[r.Key] = r.values[0]
		}
	}
	return out
}

// Conflict explains why two sets of requirements cannot both hold.
type Conflict struct {
	Key string
	// Existing is what the node or NodePool allows (nil when it does not define the key).
	Existing *Requirement
	// Incoming is what the pod asks for.
	Incoming *Requirement
}

// Error prints the conflict in an operator's words.
func (c *Conflict) Error() string {
	if c.Existing == nil {
		return fmt.Sprintf("%s: the pod needs %s but the label is not defined here", c.Key, c.Incoming.ValuesString())
	}
	return fmt.Sprintf("%s: the pod needs %s, allowed here %s", c.Key, c.Incoming.ValuesString(), c.Existing.ValuesString())
}

// Intersects returns the first key (in key order) on which rs and incoming allow no common
// value, or nil. Keys constrained by only one side are not conflicts.
func (rs Requirements) Intersects(incoming Requirements) *Conflict {
	i, j := 0, 0
	for i < len(rs.items) && j < len(incoming.items) {
		a, b := rs.items[i], incoming.items[j]
		switch c := strings.Compare(a.Key, b.Key); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			if !a.Intersects(b) {
				return &Conflict{Key: a.Key, Existing: a, Incoming: b}
			}
			i++
			j++
		}
	}
	return nil
}

// Compatible is Karpenter's looser test for placing a pod: incoming keys must intersect rs, and a
// key rs does not define is only acceptable when wellKnown says so (the node will carry it) or
// the pod asks for it to be absent (NotIn, DoesNotExist).
func (rs Requirements) Compatible(incoming Requirements, wellKnown func(key string) bool) *Conflict {
	for _, b := range incoming.items {
		if rs.Has(b.Key) || wellKnown(b.Key) {
			continue
		}
		if forbids(b) {
			continue
		}
		return &Conflict{Key: b.Key, Incoming: b}
	}
	return rs.Intersects(incoming)
}

// NoneImplied is Compatible's wellKnown for what exists already (a node, a NodeClaim): it carries
// the labels it has, and no other.
func NoneImplied(string) bool { return false }

// String prints every requirement, comma separated.
func (rs Requirements) String() string {
	parts := make([]string, len(rs.items))
	for i, r := range rs.items {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}
