package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/requirements"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// rejection says why a candidate refused a pod. Permanent rejections hold for the rest of the
// solve for every pod with the same signature, so the solver never asks again.
type rejection struct {
	code      string
	permanent bool
}

var accepted = rejection{}

func (r rejection) ok() bool { return r.code == "" }

// candidate is a place a pod may go: an existing node or a NodeClaim planned in this solve.
type candidate interface {
	try(s *scheduler, p *podData, checks []check) rejection
	// changes counts the pods placed on the candidate in this solve.
	changes() uint64
}

// existingNode is a node (or in-flight NodeClaim) of the input.
type existingNode struct {
	in        *ExistingNode
	reqs      requirements.Requirements
	available vec // allocatable less what was requested before the solve
	used      vec // what the solve placed; nil until it places a pod (most nodes get none)
	ports     []hostPort
	pods      []*corev1.Pod
	// antiAffinity are its pods with required anti-affinity, which every solve counts: few or
	// none, where reading every pod of a large cluster in each solve costs most of it.
	antiAffinity []*corev1.Pod
}

func (n *existingNode) changes() uint64 { return uint64(len(n.pods)) }

func (n *existingNode) try(s *scheduler, p *podData, checks []check) rejection {
	if untolerated(p.tolerations, n.in.Taints) != nil {
		return rejection{ReasonTaintNotTolerated, true}
	}
	if portsConflict(n.ports, p.hostPorts) {
		return rejection{ReasonHostPortConflict, true}
	}
	if (n.used == nil && !fits(p.requests, n.available)) || (n.used != nil && !fitsWith(n.used, p.requests, n.available)) {
		return rejection{ReasonInsufficientResources, true}
	}
	// An existing node's labels are all it will ever have: a pod asking for a label the node
	// lacks cannot go there, well known or not.
	if !n.reqs.Implies(p.reqs) && n.reqs.Compatible(p.reqs, requirements.NoneImplied) != nil {
		return rejection{ReasonRequirementConflict, true}
	}
	if len(checks) > 0 {
		if _, v := s.topo.apply(checks, n.reqs, true); v != nil {
			return rejection{ReasonTopologyUnsatisfiable, v.permanent}
		}
	}
	if n.used == nil {
		n.used = make(vec, len(p.requests))
	}
	n.used.addInPlace(p.requests)
	n.ports = append(n.ports, p.hostPorts...)
	n.pods = append(n.pods, p.pod)
	s.topo.recordPlacement(p, n.reqs, n.in.Taints)
	return accepted
}

// nodeClaim is a NodeClaim planned in this solve. Its requirements only narrow and its instance
// types only shrink as pods are added, which is what makes rejections cacheable.
type nodeClaim struct {
	t        *template
	hostname string
	reqs     requirements.Requirements
	types    bitset
	requests vec // pods' requests
	maxAlloc vec // per dimension, the most any remaining type offers: a cheap first test
	reserved vec // what the NodePool's limits hold for it: the largest capacity among its types
	ports    []hostPort
	pods     []*podData
	// price is what the cheapest of its types (cheapest) costs per hour.
	price    float64
	cheapest int
	// version counts the pods added, so that refusals can be remembered until it changes.
	version uint64
	// committed is set once the NodeClaim joins the plan; only then does it hold limits.
	committed bool
	// cliff is the first larger type a price cliff kept it from growing into.
	cliff *PriceCliffStop
}

func newNodeClaim(s *scheduler, t *template) *nodeClaim {
	host := hostnamePlaceholder(t.pool.Name, s.hostSeq+1) // the sequence advances on commit
	nc := &nodeClaim{
		t:        t,
		hostname: host,
		reqs:     t.reqs.Add(append([]*requirements.Requirement{requirements.New(corev1.LabelHostname, corev1.NodeSelectorOpIn, host)}, s.domainReqs[t.index]...)...),
		requests: make(vec, len(s.space.names)),
		ports:    slices.Clip(t.ports), // a pod's ports append to a copy, not to the template's
	}
	nc.types = s.fitting(nc, t.all, nc.requests)
	nc.refresh(s)
	return nc
}

func (nc *nodeClaim) try(s *scheduler, p *podData, checks []check) rejection {
	t := nc.t
	if untolerated(p.tolerations, t.pool.Taints) != nil {
		return rejection{ReasonTaintNotTolerated, true}
	}
	if portsConflict(nc.ports, p.hostPorts) {
		return rejection{ReasonHostPortConflict, true}
	}
	if !fitsWith(nc.requests, p.requests, nc.maxAlloc) {
		return rejection{ReasonInsufficientResources, true}
	}
	reqs, merged := nc.reqs, false
	if p.reqs.Len() > 0 && !reqs.Implies(p.reqs) {
		if reqs.Compatible(p.reqs, s.wellKnown) != nil {
			return rejection{ReasonRequirementConflict, true}
		}
		reqs = reqs.Merge(p.reqs)
		merged = true
	}
	topologyNarrowed := false
	if len(checks) > 0 {
		add, v := s.topo.apply(checks, reqs, false)
		if v != nil {
			return rejection{ReasonTopologyUnsatisfiable, v.permanent}
		}
		if len(add) > 0 {
			reqs = reqs.Add(add...)
			topologyNarrowed = true
		}
	}
	requests := sum(nc.requests, p.requests)
	narrowed := t.narrow(nc.types, nc.reqs, reqs)
	types := s.fitting(nc, narrowed, requests)
	if types.empty() {
		return rejection{ReasonInsufficientResources, !topologyNarrowed}
	}
	if t.minValuesMet(reqs, types) != nil {
		return rejection{ReasonMinValues, !topologyNarrowed}
	}
	price, cheapest := t.price(types, reqs)
	if nc.refusesGrowth(s, merged || topologyNarrowed, narrowed, reqs, requests, price, cheapest) {
		return rejection{rejectedForCost, false}
	}
	nc.cheapest = cheapest
	nc.reqs, nc.types, nc.requests, nc.price = reqs, types, requests, price
	nc.version++
	nc.ports = append(nc.ports, p.hostPorts...)
	nc.pods = append(nc.pods, p)
	nc.refresh(s)
	s.topo.recordPlacement(p, reqs, t.pool.Taints)
	return accepted
}

// refusesGrowth reports whether cost packing or the price cliff keeps the NodeClaim from growing
// into type cheapest at price to hold requests under requirements reqs. changed says the pod
// changed the requirements, and narrowed are the NodeClaim's types those allow.
func (nc *nodeClaim) refusesGrowth(s *scheduler, changed bool, narrowed bitset, reqs requirements.Requirements, requests vec, price float64, cheapest int) bool {
	o, t := s.in.Options, nc.t
	if (o.Packing != PackingCost && o.PriceCliff <= 0) || len(nc.pods) == 0 || price <= nc.price || cheapest < 0 {
		return false
	}
	rates := t.rates(reqs)
	e2 := rates.filled(price, t.alloc[cheapest], requests)
	if o.Packing == PackingCost && !worthGrowing(rates.filled(nc.price, t.alloc[nc.cheapest], nc.requests), e2) {
		return true
	}
	if o.PriceCliff <= 0 {
		return false
	}
	// A cliff is a step between types: weigh the type the pod needs against the one that holds
	// the NodeClaim's pods now under the same requirements, so that a rise that comes of the
	// requirements alone (on-demand only, one zone) is not taken for one.
	was, wasType := nc.price, nc.cheapest
	if changed {
		if was, wasType = t.price(narrowed, reqs); wasType < 0 || price <= was {
			return false
		}
	}
	if e := rates.filled(was, t.alloc[wasType], nc.requests); e2 > o.PriceCliff*e {
		if nc.cliff == nil {
			nc.cliff = &PriceCliffStop{InstanceType: t.types[cheapest].Name, Ratio: e2 / e}
		}
		return true
	}
	return false
}

func (nc *nodeClaim) changes() uint64 { return nc.version }

// refresh recomputes the quick-test maximum and the limit reservation after the types changed.
func (nc *nodeClaim) refresh(s *scheduler) {
	t := nc.t
	maxAlloc := make(vec, len(s.space.names))
	reserved := make(vec, len(s.space.names))
	for i := nc.types.next(0); i >= 0; i = nc.types.next(i + 1) {
		maxAlloc.maxInPlace(t.alloc[i])
		reserved.maxInPlace(t.capacity[i])
	}
	nc.maxAlloc = maxAlloc
	if remaining := s.remaining[t.index]; remaining != nil && nc.committed {
		remaining.addInPlace(nc.reserved)
		remaining.subInPlace(reserved)
	}
	nc.reserved = reserved
}

// commit adds the NodeClaim to the plan and holds its share of the NodePool's limits.
func (nc *nodeClaim) commit(s *scheduler) {
	nc.committed = true
	if remaining := s.remaining[nc.t.index]; remaining != nil {
		remaining.subInPlace(nc.reserved)
	}
}

// rejectedForCost marks a NodeClaim that would grow into a type that costs too much for what it
// holds (PackingCost's good value, or Options.PriceCliff).
const rejectedForCost = "Cost"

// goodValue is how far above its floor a NodeClaim's type may be priced, once filled with pods
// shaped like those it holds (see rates.filled), for the NodeClaim to grow into it. First-fit fills
// a NodeClaim, so the type it grows into matters more than how full it is when it crosses a size.
// Without a limit, NodeClaims grow into the largest types, which are often special purpose
// (12 TB of memory, FPGAs, GPUs) or shaped unlike their pods, and poor value.
const goodValue = 1.2

// worthGrowing decides whether a NodeClaim may grow from a type scoring e to one scoring e2:
// into good value, or no worse than it has.
func worthGrowing(e, e2 float64) bool {
	return e2 <= goodValue || e2 <= e
}

// offeringKey identifies the zones and capacity types requirements allow.
func offeringKey(reqs requirements.Requirements) string {
	var key string
	for _, k := range []string{corev1.LabelTopologyZone, karpv1.CapacityTypeLabelKey} {
		if r := reqs.Get(k); r != nil {
			key += r.String()
		}
		key += "|"
	}
	return key
}

func portsConflict(used, want []hostPort) bool {
	for _, w := range want {
		for _, u := range used {
			if w.conflicts(u) {
				return true
			}
		}
	}
	return false
}
