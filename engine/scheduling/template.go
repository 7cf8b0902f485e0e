package scheduling

import (
	"math"
	"slices"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	podutil "github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// template is a NodePool prepared for the solve: its instance types narrowed to those its
// requirements and offerings allow, cheapest first, with what pods can use on each once the
// DaemonSets that would run there take their share.
type template struct {
	pool  *NodePool
	index int
	reqs  requirements.Requirements
	types []*cloudprovider.InstanceType
	// Per type, in space vectors: allocatable less DaemonSet overhead, the overhead, and capacity.
	alloc    []vec
	daemon   []vec
	capacity []vec
	// minPrice is each type's cheapest offering the NodePool allows (the sort key).
	minPrice []float64
	all      bitset
	// masks caches, per requirement, the types it allows; rateCache the rates per offeringKey.
	masks     map[string]bitset
	rateCache map[string]rates
	// typeKeys are the label keys some instance type defines.
	typeKeys map[string]bool
	// excluded counts, per reason, the NodePool's types that its own requirements rule out.
	excluded map[string]int
	// ports are the host ports the DaemonSets that run on its nodes bind: every new node has them
	// taken before any pod lands.
	ports []hostPort
}

func newTemplate(pool *NodePool, index int, pt *poolTables, sp *space, daemonSets []*daemonSet, wellKnown func(string) bool) *template {
	t := &template{pool: pool, index: index, reqs: pool.Requirements, types: pt.types, minPrice: pt.minPrice, typeKeys: pt.typeKeys,
		excluded: pt.excluded, capacity: pt.capacity, alloc: pt.alloc, masks: map[string]bitset{}, rateCache: map[string]rates{}}
	t.all = fullBitset(len(t.types))
	t.daemon = make([]vec, len(t.types))
	// DaemonSets that would run on this NodePool's nodes, then per type those whose node
	// affinity the type's labels allow: a DaemonSet pinned to arm64 costs nothing on amd64.
	var running []*daemonSet
	// A DaemonSet's pods ignore PreferNoSchedule taints, as Karpenter counts them: the DaemonSet
	// controller places them on such nodes all the same.
	taints := slices.DeleteFunc(slices.Clone(pool.Taints), func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectPreferNoSchedule })
	for _, ds := range daemonSets {
		if tolerates(ds.tolerations, taints) && t.reqs.Compatible(ds.reqs, wellKnown) == nil {
			running = append(running, ds)
			t.ports = append(t.ports, ds.hostPorts...)
		}
	}
	if len(running) == 0 {
		zero := make(vec, len(sp.names))
		for i := range t.daemon {
			t.daemon[i] = zero
		}
		return t
	}
	t.alloc = make([]vec, len(t.types))
	for i, it := range t.types {
		t.daemon[i] = make(vec, len(sp.names))
		for _, ds := range running {
			if it.Requirements.Intersects(ds.reqs) == nil {
				t.daemon[i].addInPlace(ds.requests)
			}
		}
		t.alloc[i] = slices.Clone(pt.alloc[i])
		t.alloc[i].subInPlace(t.daemon[i])
	}
	return t
}

// price is the cheapest offering reqs allow among types, and the type offering it (-1 for none),
// scanning cheapest first and stopping once no remaining type can be cheaper.
func (t *template) price(types bitset, reqs requirements.Requirements) (float64, int) {
	best, at := math.Inf(1), -1
	for i := types.next(0); i >= 0 && t.minPrice[i] < best; i = types.next(i + 1) {
		for _, o := range t.types[i].Offerings {
			if o.Price < best && o.Available && allowsOffering(reqs, o) {
				best, at = o.Price, i
			}
		}
	}
	return best, at
}

// rates are the cheapest price per allocatable millicore and per byte among the NodePool's
// offerings in the zones and capacity types reqs allow: what no node there can beat.
type rates struct{ cpu, mem float64 }

func (t *template) rates(reqs requirements.Requirements) rates {
	key := offeringKey(reqs)
	if r, ok := t.rateCache[key]; ok {
		return r
	}
	r := rates{math.Inf(1), math.Inf(1)}
	for i := range t.types {
		cpu, mem := t.alloc[i][0], t.alloc[i][1]
		if cpu <= 0 || mem <= 0 {
			continue
		}
		for _, o := range t.types[i].Offerings {
			if o.Available && allowsOffering(reqs, o) {
				r.cpu = min(r.cpu, o.Price/float64(cpu))
				r.mem = min(r.mem, o.Price/float64(mem))
			}
		}
	}
	t.rateCache[key] = r
	return r
}

// filled is how a type's price compares with its floor once filled with pods shaped like
// content: content is scaled up until one of CPU and memory runs out on the type, and the price
// is divided by the larger of CPU and memory of that at the best rates. 1 is as cheap as the best
// rates allow; a type whose shape does not match the content, or whose price per unit is poor,
// scores higher.
func (r rates) filled(price float64, alloc, content vec) float64 {
	scale := math.Inf(1)
	for d := range 2 {
		if content[d] > 0 {
			scale = min(scale, float64(alloc[d])/float64(content[d]))
		}
	}
	floor := scale * max(float64(content[0])*r.cpu, float64(content[1])*r.mem)
	if floor <= 0 || math.IsInf(scale, 1) {
		return math.Inf(1)
	}
	return price / floor
}

func allowsOffering(reqs requirements.Requirements, o cloudprovider.Offering) bool {
	zone, ct := reqs.Get(corev1.LabelTopologyZone), reqs.Get(karpv1.CapacityTypeLabelKey)
	return (zone == nil || zone.Has(o.Zone)) && (ct == nil || ct.Has(o.CapacityType))
}

// daemonSet is a DaemonSet's pod as the solver needs it.
type daemonSet struct {
	name        string
	tolerations []corev1.Toleration
	reqs        requirements.Requirements
	requests    vec
	hostPorts   []hostPort
}

func newDaemonSet(ds *appsv1.DaemonSet, sp *space) *daemonSet {
	p := &corev1.Pod{ObjectMeta: ds.Spec.Template.ObjectMeta, Spec: ds.Spec.Template.Spec}
	d := newPodData(p, nil, true)
	return &daemonSet{name: ds.Namespace + "/" + ds.Name, tolerations: p.Spec.Tolerations,
		reqs: d.nodeRequirements(), requests: sp.podVec(podutil.Requests(p)), hostPorts: d.hostPorts}
}

// mask returns the types a requirement allows; zone and capacity type go through offerings.
func (t *template) mask(r *requirements.Requirement) bitset {
	key := r.Key + "\x00" + r.String()
	if m, ok := t.masks[key]; ok {
		return m
	}
	m := newBitset(len(t.types))
	for i, it := range t.types {
		if itr := it.Requirements.Get(r.Key); itr == nil || itr.Intersects(r) {
			m.set(i)
		}
	}
	t.masks[key] = m
	return m
}

// offeringMask returns the types with an available offering in the allowed zones and
// capacity types, which must be checked together: spot in zone a and on-demand in zone b do not
// make spot in zone b.
func (t *template) offeringMask(reqs requirements.Requirements) bitset {
	zone, ct := reqs.Get(corev1.LabelTopologyZone), reqs.Get(karpv1.CapacityTypeLabelKey)
	key := "\x01"
	if zone != nil {
		key += zone.String()
	}
	key += "\x00"
	if ct != nil {
		key += ct.String()
	}
	if m, ok := t.masks[key]; ok {
		return m
	}
	m := newBitset(len(t.types))
	for i, it := range t.types {
		if it.Offerings.HasCompatible(reqs) {
			m.set(i)
		}
	}
	t.masks[key] = m
	return m
}

// narrow returns types less those the changed requirements rule out.
func (t *template) narrow(types bitset, before, after requirements.Requirements) bitset {
	out := types
	cloned := false
	offerings := false
	for _, r := range after.Items() {
		if !t.typeKeys[r.Key] {
			continue
		}
		if old := before.Get(r.Key); old != nil && sameValues(old, r) {
			continue
		}
		if !cloned {
			out, cloned = types.clone(), true
		}
		if r.Key == corev1.LabelTopologyZone || r.Key == karpv1.CapacityTypeLabelKey {
			offerings = true
			continue
		}
		out.and(t.mask(r))
	}
	if offerings {
		out.and(t.offeringMask(after))
	}
	return out
}

func sameValues(a, b *requirements.Requirement) bool {
	return a == b || a.String() == b.String()
}

// minValuesMet checks every requirement with minValues against the types left.
func (t *template) minValuesMet(reqs requirements.Requirements, types bitset) *requirements.Requirement {
	for _, r := range reqs.Items() {
		if r.MinValues == nil {
			continue
		}
		seen := map[string]bool{}
		for i := types.next(0); i >= 0; i = types.next(i + 1) {
			if v := t.types[i].Requirements.Get(r.Key); v != nil && v.Operator() == corev1.NodeSelectorOpIn {
				for _, x := range v.Values() {
					if r.Has(x) {
						seen[x] = true
					}
				}
			}
		}
		if len(seen) < *r.MinValues {
			return r
		}
	}
	return nil
}
