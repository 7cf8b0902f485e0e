package scheduling

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"time"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// scheduler is the state of one solve.
type scheduler struct {
	prep *Prepared
	in   *Input
	// domainReqs are, per template, the topology domains a new NodeClaim starts restricted to.
	domainReqs [][]*requirements.Requirement
	space      *space
	topo       *topology
	templates  []*template
	existing   []*existingNode
	// room is, per block of blockSize existing nodes in candidate order, the most CPU and memory
	// one of them has left: a pod asking for more skips the block, where trying each node in turn
	// made a solve over a large cluster cost as many tries per pod as it has nodes.
	room       []blockRoom
	claims     []*nodeClaim
	candidates []candidate
	// remaining is, per template, what its NodePool's limits still allow (nil: no limits).
	remaining []vec
	rejects   map[uint64]*rejectCache
	wellKnown func(string) bool
	seed      maphash.Seed
	hostSeq   int
	failed    map[*podData]string // pods that could not be set up, with why
	// ignored are the pods Karpenter's provisioner ignores (also failed), with why.
	ignored map[*podData]error
	// preferNoSchedule is set when some NodePool or node has a PreferNoSchedule taint.
	preferNoSchedule bool
}

// rejectCache remembers, for one pod signature, the candidates and templates that refused it
// for good. Candidates before start all refused.
type rejectCache struct {
	start     int
	rejected  bitset
	templates bitset
	// costly maps a candidate that refused for cost to its changes() then: the refusal holds
	// until the candidate takes another pod.
	costly map[int]uint64
}

// Solve places the pods of in and explains those it cannot place.
func Solve(in *Input) *Results { return Prepare(in).Solve(in.Pods, nil, nil) }

// Prepared is the part of a solve that depends only on the NodePools, the DaemonSets, the
// existing nodes and which resources exist: the instance types of each NodePool narrowed, priced
// and reduced by DaemonSet overhead, and what solves read of each node. Disruption prepares once
// per pass and solves candidate after candidate, each without a few of the nodes.
type Prepared struct {
	in        *Input
	space     *space
	templates []*template
	wellKnown func(string) bool
	// preferNoSchedule is set when some NodePool has a PreferNoSchedule taint.
	preferNoSchedule bool
	// nodes are in.Nodes as every solve starts them, initialized nodes first (Karpenter's order),
	// made by the first solve: a large cluster's nodes cost a solve more to set up than to try.
	// nodeIndex finds them by name (a Node and a NodeClaim not yet registered may share one).
	nodes     []existingNode
	nodeIndex map[string][]int
	// scratch holds the last solve's nodes and candidates, which the next solve overwrites.
	scratch struct {
		all        []existingNode
		existing   []*existingNode
		candidates []candidate
		room       []blockRoom
	}
}

// existingNodes are the prepared nodes, made once.
func (p *Prepared) existingNodes() []existingNode {
	if p.nodes != nil || len(p.in.Nodes) == 0 {
		return p.nodes
	}
	order := make([]*ExistingNode, len(p.in.Nodes))
	for i := range p.in.Nodes {
		order[i] = &p.in.Nodes[i]
	}
	slices.SortStableFunc(order, func(a, b *ExistingNode) int {
		if a.Initialized == b.Initialized {
			return 0
		}
		if a.Initialized {
			return -1
		}
		return 1
	})
	p.nodes, p.nodeIndex = make([]existingNode, len(order)), make(map[string][]int, len(order))
	for i, n := range order {
		p.nodeIndex[n.Name] = append(p.nodeIndex[n.Name], i)
		en := existingNode{in: n, reqs: requirements.FromLabels(n.Labels), available: p.space.vec(n.Allocatable)}
		en.available.subInPlace(p.space.vec(n.Requested))
		for _, pod := range n.Pods {
			en.ports = append(en.ports, hostPortsOf(pod)...)
			if len(requiredAntiAffinity(pod.Spec.Affinity)) > 0 {
				en.antiAffinity = append(en.antiAffinity, pod)
			}
		}
		// Clipped: a pod placed in a solve appends to a copy, not to the shared slice.
		en.ports = slices.Clip(en.ports)
		p.nodes[i] = en
	}
	return p.nodes
}

// Prepare builds the reusable part of a solve from in's NodePools, DaemonSets and options; the
// resources of in.Nodes and in.Pods are known to every later Solve (a pod asking for a resource
// nothing offers cannot be placed).
func Prepare(in *Input) *Prepared {
	p := &Prepared{in: in, space: newSpace()}
	// The labels every launched node carries: Karpenter's, the cloud's, and its hostname.
	p.wellKnown = karpv1.WellKnownLabels().Insert(in.WellKnownLabels...).Insert(corev1.LabelHostname).Has
	for _, pod := range in.Pods {
		p.space.addAll(in.requests(pod))
	}
	for i := range in.NodePools {
		np := &in.NodePools[i]
		for _, it := range np.InstanceTypes {
			p.space.addAll(it.Capacity)
		}
		p.space.addAll(np.Limits)
		p.preferNoSchedule = p.preferNoSchedule || hasPreferNoSchedule(np.Taints)
	}
	for i := range in.Nodes {
		p.space.addAll(in.Nodes[i].Allocatable)
	}
	p.space.sortExtra()
	var daemonSets []*daemonSet
	for _, ds := range in.DaemonSets {
		daemonSets = append(daemonSets, newDaemonSet(ds, p.space))
	}
	order := make([]int, len(in.NodePools))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		pa, pb := &in.NodePools[a], &in.NodePools[b]
		return cmp.Or(cmp.Compare(pb.Weight, pa.Weight), cmp.Compare(pa.Name, pb.Name))
	})
	pools := make([]*NodePool, len(order))
	for k, i := range order {
		pools[k] = &in.NodePools[i]
	}
	for k, pt := range in.Cache.tables(pools, p.space) {
		p.templates = append(p.templates, newTemplate(pools[k], k, pt, p.space, daemonSets, p.wellKnown))
	}
	return p
}

// NoInstanceTypes names the NodePools of the solve none of whose instance types passes the
// NodePool's own requirements and offerings: they can launch nothing.
func (p *Prepared) NoInstanceTypes() []string {
	var out []string
	for _, t := range p.templates {
		if len(t.types) == 0 {
			out = append(out, t.pool.Name)
		}
	}
	return out
}

// Solve places pods on the input's nodes, but those named in without, and on new NodeClaims.
// freed, when not nil, is capacity that no longer counts against each NodePool's limits: the
// nodes a disruption simulation takes away, which Karpenter's simulation leaves out of the
// NodePools' usage. Solves of one Prepared must not run concurrently.
func (p *Prepared) Solve(pods []*corev1.Pod, without map[string]bool, freed map[string]corev1.ResourceList) *Results {
	s := newScheduler(p, without, freed)
	queued := s.prepare(pods)
	q := newQueue(queued)
	opts := p.in.Options
	timedOut := false
	start := time.Now()
	for n := 0; ; n++ {
		if n%64 == 0 { // the clock and the progress are read now and then: a pod takes microseconds
			if opts.Progress != nil {
				opts.Progress(q.len(), time.Since(start), false)
			}
			if !opts.Deadline.IsZero() && time.Now().After(opts.Deadline) {
				timedOut = true
				break
			}
		}
		pd, ok := q.pop()
		if !ok {
			break
		}
		if s.add(pd) {
			continue
		}
		relaxed := false
		if opts.PreferencePolicy != PreferencesIgnore && pd.relax(s.preferNoSchedule) != "" {
			relaxed = true
			if err := s.derive(pd); err != nil {
				s.failed[pd] = err.Error()
				continue
			}
		}
		q.push(pd, relaxed)
	}
	left := q.remaining()
	if !timedOut {
		// Pods placed after a pod's last attempt may have opened a domain for it: one last try.
		left = slices.DeleteFunc(left, s.add)
	}
	if opts.Progress != nil {
		opts.Progress(0, time.Since(start), true)
	}
	return s.results(left, timedOut)
}

func newScheduler(p *Prepared, without map[string]bool, freed map[string]corev1.ResourceList) *scheduler {
	s := &scheduler{prep: p, in: p.in, space: p.space, templates: p.templates, topo: newTopology(),
		rejects: map[uint64]*rejectCache{}, seed: maphash.MakeSeed(), failed: map[*podData]string{}, ignored: map[*podData]error{},
		wellKnown: p.wellKnown, preferNoSchedule: p.preferNoSchedule, domainReqs: make([][]*requirements.Requirement, len(p.templates))}
	s.topo.wellKnown = s.wellKnown
	for _, t := range s.templates {
		s.remaining = append(s.remaining, s.limitsOf(t.pool, freed[t.pool.Name]))
	}
	base := p.existingNodes()
	skip := make([]int, 0, len(without))
	for name := range without {
		skip = append(skip, p.nodeIndex[name]...)
	}
	slices.Sort(skip)
	// The last solve's slices are overwritten: a solve over thousands of nodes allocates them
	// once per Prepared, not once per solve.
	sc := &p.scratch
	n := len(base) - len(skip)
	sc.all, sc.existing = grown(sc.all, n), grown(sc.existing, n)
	sc.candidates, sc.room = grown(sc.candidates, n), grown(sc.room, (n+blockSize-1)/blockSize)
	k := 0
	for i := range base {
		if len(skip) > 0 && skip[0] == i {
			skip = skip[1:]
			continue
		}
		sc.all[k] = base[i]
		sc.existing[k], sc.candidates[k] = &sc.all[k], &sc.all[k]
		s.preferNoSchedule = s.preferNoSchedule || hasPreferNoSchedule(base[i].in.Taints)
		k++
	}
	s.existing, s.candidates, s.room = sc.existing, sc.candidates, sc.room
	for b := range s.room {
		s.refreshRoom(b)
	}
	return s
}

// grown is buf resliced to n, reallocated only when too short.
func grown[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// prepare builds what the loop reads and returns the pods to place.
func (s *scheduler) prepare(podList []*corev1.Pod) []*podData {
	pods := make([]*podData, 0, len(podList))
	for _, p := range podList {
		requests := s.in.requests(p)
		d := newPodData(p, s.space.podVec(requests), s.in.Options.PreferencePolicy == PreferencesIgnore)
		pods = append(pods, d)
		if err := ignoredBecause(p); err != nil {
			s.ignored[d] = err
			s.failed[d] = err.Error()
			continue
		}
		if missing := s.space.missing(requests); len(missing) > 0 {
			s.failed[d] = fmt.Sprintf("it requests %s, which no instance type or node offers", strings.Join(missing, ", "))
			continue
		}
		if s.in.Volumes != nil {
			exprs, err := s.in.Volumes(p)
			if err != nil { // Karpenter's provisioner ignores a pod whose claim, volume or class is missing
				s.ignored[d] = volumeError{err}
				s.failed[d] = err.Error()
				continue
			}
			d.volumes = requirements.FromNodeSelector(exprs)
		}
	}
	s.indexDomains(pods)
	for _, d := range pods {
		if _, bad := s.failed[d]; bad {
			continue
		}
		if err := s.derive(d); err != nil {
			s.failed[d] = err.Error()
		}
	}
	s.countExistingPods()
	for _, d := range pods {
		d.computeSignature(s.seed) // group ids are final now
	}
	return pods
}

// volumeError is why a pod's volumes keep it from being placed (Input.Volumes); the error may
// carry its own hint (a Hint method).
type volumeError struct{ error }

func (e volumeError) Unwrap() error { return e.error }

// unlimited is the allowance of a dimension without a limit, far enough below maxValue that
// adding reservations back to it stays exact.
const unlimited = maxValue / 4

// limitsOf is what a NodePool's limits still allow beyond its usage, less freed; dimensions
// without a limit are unbounded.
func (s *scheduler) limitsOf(np *NodePool, freed corev1.ResourceList) vec {
	if len(np.Limits) == 0 {
		return nil
	}
	v := make(vec, len(s.space.names))
	for i := range v {
		v[i] = unlimited
	}
	for name, q := range np.Limits {
		// A limit beyond what any sum of capacities reaches is no limit.
		v[s.space.index[name]] = min(value(name, q), unlimited)
	}
	v.subInPlace(s.space.vec(np.Usage))
	v.addInPlace(s.space.vec(freed))
	return v
}

// fitting returns the types of a NodeClaim whose allocatable holds requests and whose capacity
// stays within what the NodePool's limits allow it.
func (s *scheduler) fitting(nc *nodeClaim, types bitset, requests vec) bitset {
	t := nc.t
	remaining := s.remaining[t.index]
	var allowance vec
	if remaining != nil {
		allowance = sum(remaining, nc.reservedOrZero(len(s.space.names)))
	}
	out := types
	cloned := false
	for i := types.next(0); i >= 0; i = types.next(i + 1) {
		if fits(requests, t.alloc[i]) && (allowance == nil || fits(t.capacity[i], allowance)) {
			continue
		}
		if !cloned {
			out, cloned = types.clone(), true
		}
		out.clear(i)
	}
	return out
}

func (nc *nodeClaim) reservedOrZero(n int) vec {
	if nc.committed && nc.reserved != nil {
		return nc.reserved
	}
	return make(vec, n)
}

// indexDomains learns the values each topology key can take from the NodePools and nodes.
func (s *scheduler) indexDomains(pods []*podData) {
	keys := sets.New[string]()
	for _, d := range pods {
		for _, c := range d.spreads {
			keys.Insert(c.TopologyKey)
		}
		for _, t := range affinityTerms(d.affinity) {
			keys.Insert(t.term.TopologyKey)
		}
	}
	for _, n := range s.existing {
		for _, p := range n.antiAffinity {
			for _, t := range requiredAntiAffinity(p.Spec.Affinity) {
				keys.Insert(t.TopologyKey)
			}
		}
	}
	keys.Delete(corev1.LabelHostname)
	for _, key := range sets.List(keys) {
		for _, t := range s.templates {
			values := sets.New[string]()
			poolReq := t.reqs.Get(key)
			defined := false
			for _, it := range t.types {
				r := it.Requirements.Get(key)
				if r == nil {
					continue
				}
				defined = true
				if poolReq != nil {
					r = r.Intersection(poolReq)
				}
				if r.Operator() == corev1.NodeSelectorOpIn {
					values.Insert(r.Values()...)
				}
			}
			if !defined && poolReq != nil && poolReq.Operator() == corev1.NodeSelectorOpIn {
				values.Insert(poolReq.Values()...)
			}
			for _, v := range sets.List(values) {
				s.topo.addDomain(key, v, provider{t.reqs, t.pool.Taints})
			}
			if defined || poolReq != nil {
				s.domainReqs[t.index] = append(s.domainReqs[t.index], requirements.New(key, corev1.NodeSelectorOpIn, sets.List(values)...))
			}
		}
		for _, n := range s.existing {
			if v, ok := n.in.Labels[key]; ok {
				s.topo.addDomain(key, v, provider{n.reqs, n.in.Taints})
			}
		}
	}
}

// derive recomputes what a pod asks for from its (possibly relaxed) constraints.
func (s *scheduler) derive(d *podData) error {
	d.reqs = d.nodeRequirements().Merge(d.volumes)
	d.owned, d.ownsInverse = nil, nil
	ns := d.pod.Namespace
	for _, c := range d.spreads {
		sel, err := selectorFor(c.LabelSelector, c.MatchLabelKeys, nil, d.pod.Labels)
		if err != nil {
			return fmt.Errorf("topology spread on %s: %w", c.TopologyKey, err)
		}
		f := &nodeFilter{}
		if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
			f.terms = d.strictTerms()
		}
		if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
			f.honorTaints, f.tolerations = true, d.tolerations
		}
		minDomains := int32(0)
		if c.MinDomains != nil {
			minDomains = *c.MinDomains
		}
		d.owned = append(d.owned, s.topo.group(topoGroup{kind: kindSpread, key: c.TopologyKey, namespaces: sets.New(ns),
			selector: sel, maxSkew: c.MaxSkew, minDomains: minDomains, filter: f}))
	}
	for _, t := range affinityTerms(d.affinity) {
		g, err := s.termGroup(t.term, t.kind, false, d.pod)
		if err != nil {
			return err
		}
		d.owned = append(d.owned, g)
	}
	for _, term := range requiredAntiAffinity(d.affinity) {
		g, err := s.termGroup(term, kindAntiAffinity, true, d.pod)
		if err != nil {
			return err
		}
		d.ownsInverse = append(d.ownsInverse, g)
	}
	d.computeSignature(s.seed)
	return nil
}

func (s *scheduler) termGroup(term corev1.PodAffinityTerm, kind topoKind, inverse bool, p *corev1.Pod) (*topoGroup, error) {
	sel, err := selectorFor(term.LabelSelector, term.MatchLabelKeys, term.MismatchLabelKeys, p.Labels)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", kind, term.TopologyKey, err)
	}
	namespaces, err := namespacesFor(term, p.Namespace, s.in.NamespaceLabels)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", kind, term.TopologyKey, err)
	}
	return s.topo.group(topoGroup{kind: kind, key: term.TopologyKey, inverse: inverse, namespaces: namespaces, selector: sel}), nil
}

type kindedTerm struct {
	term corev1.PodAffinityTerm
	kind topoKind
}

// affinityTerms lists the pod (anti-)affinity terms a pod must satisfy: required ones and, until
// relaxation drops them, preferred ones.
func affinityTerms(a *corev1.Affinity) []kindedTerm {
	if a == nil {
		return nil
	}
	var out []kindedTerm
	if pa := a.PodAffinity; pa != nil {
		for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			out = append(out, kindedTerm{t, kindAffinity})
		}
		for _, t := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			out = append(out, kindedTerm{t.PodAffinityTerm, kindAffinity})
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			out = append(out, kindedTerm{t, kindAntiAffinity})
		}
		for _, t := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			out = append(out, kindedTerm{t.PodAffinityTerm, kindAntiAffinity})
		}
	}
	return out
}

func requiredAntiAffinity(a *corev1.Affinity) []corev1.PodAffinityTerm {
	if a == nil || a.PodAntiAffinity == nil {
		return nil
	}
	return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
}

// countExistingPods records the pods already bound to nodes in every group they match, and their
// required anti-affinity in inverse groups.
func (s *scheduler) countExistingPods() {
	for _, n := range s.existing {
		for _, p := range n.antiAffinity {
			for _, term := range requiredAntiAffinity(p.Spec.Affinity) {
				g, err := s.termGroup(term, kindAntiAffinity, true, p)
				if err != nil {
					continue // the API server admitted it; a selector we cannot read blocks nothing
				}
				if v, ok := n.in.Labels[term.TopologyKey]; ok {
					g.record(v)
				}
			}
		}
	}
	if len(s.topo.groups) == 0 {
		return // no pod to place has a topology constraint: nothing to count
	}
	for _, n := range s.existing {
		for _, p := range n.in.Pods {
			for _, g := range s.topo.matching(p.Namespace, p.Labels) {
				if g.inverse || !g.filter.matches(n.reqs, n.in.Taints, requirements.NoneImplied) {
					continue
				}
				if v, ok := n.in.Labels[g.key]; ok {
					g.record(v)
				}
			}
		}
	}
}

// add places a pod on the first candidate that takes it, or on a new NodeClaim.
func (s *scheduler) add(p *podData) bool {
	if _, bad := s.failed[p]; bad {
		return false
	}
	checks := s.topo.prepare(p)
	rc := s.rejects[p.sig]
	if rc == nil {
		rc = &rejectCache{}
		s.rejects[p.sig] = rc
	}
	// First a candidate that holds the pod for free: an existing node, or a NodeClaim whose
	// cheapest type has room left; then one that must grow. Filling slack before growing keeps
	// nodes full when pod shapes differ.
	for i := rc.start; i < len(s.candidates); i++ {
		if skip := s.roomless(i, p); skip > 0 {
			i += skip - 1
			continue
		}
		if rc.rejected.has(i) {
			if i == rc.start {
				rc.start++
			}
			continue
		}
		if nc, ok := s.candidates[i].(*nodeClaim); ok && !fitsWith(nc.requests, p.requests, nc.t.alloc[nc.cheapest]) {
			continue
		}
		if s.tryCandidate(rc, i, p, checks) {
			return true
		}
	}
	for i := rc.start; i < len(s.candidates); i++ {
		if skip := s.roomless(i, p); skip > 0 {
			i += skip - 1
			continue
		}
		if rc.rejected.has(i) {
			if i == rc.start {
				rc.start++
			}
			continue
		}
		if s.tryCandidate(rc, i, p, checks) {
			return true
		}
	}
	for _, t := range s.templates {
		if rc.templates.has(t.index) {
			continue
		}
		if len(t.types) == 0 || untolerated(p.tolerations, t.pool.Taints) != nil || t.reqs.Compatible(p.reqs, s.wellKnown) != nil {
			rc.templates.setGrow(t.index)
			continue
		}
		nc := newNodeClaim(s, t)
		if nc.types.empty() && s.tighten(t) {
			nc = newNodeClaim(s, t)
		}
		r := nc.try(s, p, checks)
		if r.ok() {
			s.hostSeq++
			nc.commit(s)
			s.claims = append(s.claims, nc)
			s.candidates = append(s.candidates, nc)
			return true
		}
		if r.permanent {
			rc.templates.setGrow(t.index)
		}
	}
	return false
}

// tighten frees room under a NodePool's limits: each of its planned NodeClaims drops the options
// larger than its cheapest one in a limited resource, so that it holds no more than it would
// launch. It reports whether anything was freed.
func (s *scheduler) tighten(t *template) bool {
	remaining := s.remaining[t.index]
	if remaining == nil {
		return false
	}
	before := slices.Clone(remaining)
	limited := make([]int, 0, len(t.pool.Limits))
	for name := range t.pool.Limits {
		limited = append(limited, s.space.index[name])
	}
	for _, nc := range s.claims {
		cheapest := nc.types.next(0)
		if nc.t != t || cheapest < 0 {
			continue
		}
		kept := nc.types.clone()
		for i := kept.next(0); i >= 0; i = kept.next(i + 1) {
			for _, d := range limited {
				if t.capacity[i][d] > t.capacity[cheapest][d] {
					kept.clear(i)
					break
				}
			}
		}
		nc.types = kept
		nc.refresh(s)
	}
	return !slices.Equal(before, remaining)
}

// tryCandidate offers a pod to candidate i and records a refusal in the pod's cache.
func (s *scheduler) tryCandidate(rc *rejectCache, i int, p *podData, checks []check) bool {
	c := s.candidates[i]
	if v, ok := rc.costly[i]; ok && v == c.changes() {
		return false
	}
	r := c.try(s, p, checks)
	switch {
	case r.ok():
		if i < len(s.existing) {
			s.refreshRoom(i / blockSize)
		}
		return true
	case r.permanent:
		rc.rejected.setGrow(i)
	case r.code == rejectedForCost:
		if rc.costly == nil {
			rc.costly = map[int]uint64{}
		}
		rc.costly[i] = c.changes()
	}
	return false
}

func hostnamePlaceholder(pool string, n int) string {
	return fmt.Sprintf("%s-placeholder-%05d", pool, n)
}

// results turns the solve's state into the plan.
func (s *scheduler) results(left []*podData, timedOut bool) *Results {
	r := &Results{}
	for _, nc := range s.claims {
		r.NewNodeClaims = append(r.NewNodeClaims, s.nodeClaimResult(nc))
	}
	for _, n := range s.existing {
		if len(n.pods) > 0 {
			r.ExistingNodes = append(r.ExistingNodes, &ExistingNodeResult{Name: n.in.Name, Pods: n.pods})
		}
	}
	slices.SortStableFunc(r.ExistingNodes, func(a, b *ExistingNodeResult) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortStableFunc(left, func(a, b *podData) int { return cmp.Compare(a.key, b.key) })
	for _, p := range left {
		r.Unschedulable = append(r.Unschedulable, &PodError{Pod: p.pod, Reasons: s.explain(p, timedOut)})
	}
	return r
}

func (s *scheduler) nodeClaimResult(nc *nodeClaim) *NodeClaim {
	t := nc.t
	type option struct {
		i        int
		offering cloudprovider.Offering
		ok       bool
	}
	spot := false
	if ct := nc.reqs.Get(karpv1.CapacityTypeLabelKey); ct == nil || ct.Has(karpv1.CapacityTypeSpot) {
		for i := nc.types.next(0); i >= 0 && !spot; i = nc.types.next(i + 1) {
			_, spot = cheapestOffering(t.types[i].Offerings, nc.reqs, karpv1.CapacityTypeSpot)
		}
	}
	capacityType := karpv1.CapacityTypeOnDemand
	if spot {
		capacityType = karpv1.CapacityTypeSpot
	}
	options := make([]option, 0, nc.types.count())
	for i := nc.types.next(0); i >= 0; i = nc.types.next(i + 1) {
		o, ok := cheapestOffering(t.types[i].Offerings, nc.reqs, capacityType)
		options = append(options, option{i, o, ok})
	}
	slices.SortStableFunc(options, func(a, b option) int {
		if a.ok != b.ok {
			if a.ok {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.offering.Price, b.offering.Price), cmp.Compare(a.i, b.i))
	})
	limit := s.in.Options.MaxInstanceTypes
	if limit <= 0 {
		limit = DefaultMaxInstanceTypes
	}
	keep := truncate(nc, len(options), limit, func(k int) int { return options[k].i })
	out := &NodeClaim{
		NodePool:      t.pool.Name,
		Hostname:      nc.hostname,
		Requirements:  nc.reqs,
		Taints:        t.pool.Taints,
		StartupTaints: t.pool.StartupTaints,
		Requests:      s.space.list(nc.requests),
		StoppedAt:     nc.cliff,
	}
	for _, k := range keep {
		out.InstanceTypes = append(out.InstanceTypes, t.types[options[k].i])
	}
	out.Labels = claimLabels(t.pool.Labels, nc.reqs, s.wellKnown, out.InstanceTypes)
	for _, p := range nc.pods {
		out.Pods = append(out.Pods, p.pod)
	}
	if len(options) > 0 {
		first := options[keep[0]]
		out.InstanceType = t.types[first.i]
		out.Offering = first.offering
		out.DaemonSetOverhead = s.space.list(t.daemon[first.i])
	}
	return out
}

// truncate keeps the first limit options (by position in 0..n), adding later ones only where a
// requirement's minValues would otherwise not be met.
func truncate(nc *nodeClaim, n, limit int, typeIndex func(int) int) []int {
	keep := make([]int, 0, min(n, limit))
	kept := newBitset(len(nc.t.types))
	for k := 0; k < n && k < limit; k++ {
		keep = append(keep, k)
		kept.set(typeIndex(k))
	}
	for k := limit; k < n && nc.t.minValuesMet(nc.reqs, kept) != nil; k++ {
		keep = append(keep, k)
		kept.set(typeIndex(k))
	}
	return keep
}

// cheapestOffering finds the cheapest available offering of a capacity type that reqs allow.
func cheapestOffering(ofs cloudprovider.Offerings, reqs requirements.Requirements, capacityType string) (cloudprovider.Offering, bool) {
	zones := reqs.Get(corev1.LabelTopologyZone)
	var best cloudprovider.Offering
	found := false
	for _, o := range ofs {
		if !o.Available || o.CapacityType != capacityType || (zones != nil && !zones.Has(o.Zone)) {
			continue
		}
		if !found || o.Price < best.Price || (o.Price == best.Price && o.Zone < best.Zone) {
			best, found = o, true
		}
	}
	return best, found
}

func hasPreferNoSchedule(taints []corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectPreferNoSchedule })
}

func labelsSet(m map[string]string) labels.Set { return labels.Set(m) }

// blockSize is how many existing nodes share a blockRoom.
const blockSize = 32

// blockRoom is the most CPU and memory any node of a block has left.
type blockRoom struct{ cpu, mem int64 }

// refreshRoom computes block b's room again, after one of its nodes took a pod.
func (s *scheduler) refreshRoom(b int) {
	var r blockRoom
	for _, n := range s.existing[b*blockSize : min((b+1)*blockSize, len(s.existing))] {
		cpu, mem := n.available[0], n.available[1] // the space's first dimensions
		if n.used != nil {
			cpu, mem = add(cpu, -n.used[0]), add(mem, -n.used[1])
		}
		r.cpu, r.mem = max(r.cpu, cpu), max(r.mem, mem)
	}
	s.room[b] = r
}

// roomless is how many candidates from i on may be skipped for p: the rest of i's block when i
// starts a block of existing nodes none of which has p's CPU and memory left, else 0.
func (s *scheduler) roomless(i int, p *podData) int {
	if i%blockSize != 0 || i >= len(s.existing) {
		return 0
	}
	if r := s.room[i/blockSize]; r.cpu >= p.requests[0] && r.mem >= p.requests[1] {
		return 0
	}
	return min(blockSize, len(s.existing)-i)
}
