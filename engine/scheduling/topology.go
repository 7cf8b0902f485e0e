package scheduling

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/nodepilot/nodepilot/engine/requirements"
)

type topoKind uint8

const (
	kindSpread topoKind = iota
	kindAffinity
	kindAntiAffinity
)

func (k topoKind) String() string {
	switch k {
	case kindSpread:
		return "topology spread"
	case kindAffinity:
		return "pod affinity"
	default:
		return "pod anti-affinity"
	}
}

// topoGroup counts, per domain of one topology key, the pods one selector matches. Pods with the
// same constraint share a group: a Deployment of 1,000 replicas with self anti-affinity is one
// group with 1,000 owners, not 1,000 groups.
type topoGroup struct {
	id   int
	kind topoKind
	key  string
	// inverse groups hold placed pods' required anti-affinity: they keep the pods their selector
	// matches out of the domains their owners are in.
	inverse    bool
	namespaces sets.Set[string] // nil: every namespace
	selector   labels.Selector
	maxSkew    int32
	minDomains int32
	filter     *nodeFilter // spread only
	counts     map[string]int32
	total      int32
	desc       string
	// eligible caches, per domain, whether it counts for the spread (see topology.eligible).
	eligible map[string]bool
}

func (g *topoGroup) selects(namespace string, podLabels labels.Set) bool {
	if g.namespaces != nil && !g.namespaces.Has(namespace) {
		return false
	}
	return g.selector.Matches(podLabels)
}

func (g *topoGroup) record(domain string) {
	g.counts[domain]++
	g.total++
}

// nodeFilter decides which nodes count towards a spread constraint: with nodeAffinityPolicy
// Honor (the default) only nodes the pod's node affinity allows; with nodeTaintsPolicy Honor only
// nodes whose taints the pod tolerates.
type nodeFilter struct {
	terms       []requirements.Requirements // ORed; empty: any node
	tolerations []corev1.Toleration         // nil unless taints are honoured
	honorTaints bool
}

func (f *nodeFilter) matches(reqs requirements.Requirements, taints []corev1.Taint, wellKnown func(string) bool) bool {
	if f == nil {
		return true
	}
	if f.honorTaints && !tolerates(f.tolerations, taints) {
		return false
	}
	if len(f.terms) == 0 {
		return true
	}
	for _, t := range f.terms {
		if reqs.Compatible(t, wellKnown) == nil {
			return true
		}
	}
	return false
}

func (f *nodeFilter) id() string {
	if f == nil {
		return ""
	}
	var b strings.Builder
	for _, t := range f.terms {
		b.WriteString(t.String())
		b.WriteByte('|')
	}
	if f.honorTaints {
		fmt.Fprintf(&b, "taints:%v", f.tolerations)
	}
	return b.String()
}

// topology holds every group of a solve and the domains each topology key can take.
type topology struct {
	groups []*topoGroup
	byID   map[string]*topoGroup
	// domains are the values each non-hostname key can take, from the NodePools' instance
	// types and the existing nodes, sorted; providers lists what offers each.
	domains   map[string][]string
	providers map[string]map[string][]provider
	// matches caches, per namespace and label set, the groups whose selector matches.
	matches map[string][]*topoGroup
	// wellKnown says which labels a planned node will carry even if no requirement names them.
	wellKnown func(string) bool
}

func newTopology() *topology {
	return &topology{byID: map[string]*topoGroup{}, domains: map[string][]string{},
		providers: map[string]map[string][]provider{}, matches: map[string][]*topoGroup{}}
}

// group returns the shared group for these parameters, creating it.
func (t *topology) group(g topoGroup) *topoGroup {
	id := fmt.Sprintf("%d|%s|%v|%v|%s|%d|%d|%s", g.kind, g.key, g.inverse, sortedNamespaces(g.namespaces),
		g.selector.String(), g.maxSkew, g.minDomains, g.filter.id())
	if existing, ok := t.byID[id]; ok {
		return existing
	}
	g.id = len(t.groups)
	g.counts = map[string]int32{}
	g.desc = describeGroup(&g)
	t.byID[id] = &g
	t.groups = append(t.groups, &g)
	clear(t.matches) // a new group may match label sets cached before it existed
	return &g
}

func sortedNamespaces(ns sets.Set[string]) []string {
	if ns == nil {
		return nil
	}
	return sets.List(ns)
}

func describeGroup(g *topoGroup) string {
	sel := g.selector.String()
	if sel == "" {
		sel = "every pod"
	}
	switch {
	case g.inverse:
		return fmt.Sprintf("anti-affinity of pods already placed (%s on %s)", sel, g.key)
	case g.kind == kindSpread:
		return fmt.Sprintf("topology spread on %s (maxSkew %d, %s)", g.key, g.maxSkew, sel)
	default:
		return fmt.Sprintf("%s on %s (%s)", g.kind, g.key, sel)
	}
}

// provider is a NodePool or node that offers a domain: its labels as requirements and its taints.
type provider struct {
	reqs   requirements.Requirements
	taints []corev1.Taint
}

// addDomain records that key can take value, offered by something with these requirements and taints.
func (t *topology) addDomain(key, value string, p provider) {
	if key == corev1.LabelHostname {
		return // hostname domains are the nodes themselves
	}
	vals := t.domains[key]
	if i, found := slices.BinarySearch(vals, value); !found {
		t.domains[key] = slices.Insert(vals, i, value)
	}
	if t.providers[key] == nil {
		t.providers[key] = map[string][]provider{}
	}
	t.providers[key][value] = append(t.providers[key][value], p)
}

// matching returns the groups whose selector matches a pod's namespace and labels (cached).
func (t *topology) matching(namespace string, podLabels map[string]string) []*topoGroup {
	k := labelKey(namespace, podLabels)
	if m, ok := t.matches[k]; ok {
		return m
	}
	var m []*topoGroup
	set := labels.Set(podLabels)
	for _, g := range t.groups {
		if g.selects(namespace, set) {
			m = append(m, g)
		}
	}
	t.matches[k] = m
	return m
}

func labelKey(namespace string, podLabels map[string]string) string {
	keys := make([]string, 0, len(podLabels))
	for k := range podLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(namespace)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(podLabels[k])
	}
	return b.String()
}

// recordPlacement counts a pod placed on a node with reqs and taints in every group it matches,
// and in the inverse groups of its own anti-affinity.
func (t *topology) recordPlacement(p *podData, reqs requirements.Requirements, taints []corev1.Taint) {
	for _, g := range t.matching(p.pod.Namespace, p.pod.Labels) {
		if g.inverse || !g.filter.matches(reqs, taints, t.wellKnown) {
			continue
		}
		r := reqs.Get(g.key)
		if r == nil || r.Operator() != corev1.NodeSelectorOpIn {
			continue
		}
		// Anti-affinity blocks every domain the pod may end up in; the others count a pod only
		// once its domain is known.
		if g.kind == kindAntiAffinity {
			for _, d := range r.Values() {
				g.record(d)
			}
		} else if r.Len() == 1 {
			g.record(r.Values()[0])
		}
	}
	for _, g := range p.ownsInverse {
		if r := reqs.Get(g.key); r != nil && r.Operator() == corev1.NodeSelectorOpIn {
			for _, d := range r.Values() {
				g.record(d)
			}
		}
	}
}

// check is one group's verdict for one pod attempt, computed once and applied per candidate.
type check struct {
	g    *topoGroup
	self bool // the pod counts towards the group
	// viable lists the domains the pod may go to (non-hostname keys), best first.
	viable []string
	// bootstrap: pod affinity with no matching pod anywhere yet, the pod selects itself, and it
	// may start the group in any domain.
	bootstrap bool
	// podDomains is the pod's own requirement on the key (nil: any).
	podDomains *requirements.Requirement
}

// prepare computes the checks a pod must pass now.
func (t *topology) prepare(p *podData) []check {
	var checks []check
	self := func(g *topoGroup) bool { return g.selects(p.pod.Namespace, labels.Set(p.pod.Labels)) }
	for _, g := range p.owned {
		c := check{g: g, self: self(g), podDomains: p.reqs.Get(g.key)}
		t.viable(&c, p)
		checks = append(checks, c)
	}
	for _, g := range t.matching(p.pod.Namespace, p.pod.Labels) {
		if g.inverse && g.total > 0 {
			c := check{g: g, podDomains: p.reqs.Get(g.key)}
			t.viable(&c, p)
			checks = append(checks, c)
		}
	}
	return checks
}

func (t *topology) viable(c *check, p *podData) {
	g := c.g
	if g.key == corev1.LabelHostname {
		c.bootstrap = g.kind == kindAffinity && !g.inverse && g.total == 0 && c.self
		return
	}
	domains := t.domains[g.key]
	allowed := func(d string) bool { return c.podDomains == nil || c.podDomains.Has(d) }
	switch {
	case g.kind == kindSpread:
		// The skew is measured over the domains the pod's hard constraints allow
		// (nodeAffinityPolicy); a preference only narrows where this pod may go.
		eligible := make([]string, 0, len(domains))
		for _, d := range domains {
			if t.eligible(g, d) {
				eligible = append(eligible, d)
			}
		}
		minCount := int32(0)
		if len(eligible) > 0 && int32(len(eligible)) >= g.minDomains {
			minCount = g.counts[eligible[0]]
			for _, d := range eligible[1:] {
				minCount = min(minCount, g.counts[d])
			}
		}
		selfCount := int32(0)
		if c.self {
			selfCount = 1
		}
		for _, d := range eligible {
			if allowed(d) && g.counts[d]+selfCount-minCount <= g.maxSkew {
				c.viable = append(c.viable, d)
			}
		}
		slices.SortStableFunc(c.viable, func(a, b string) int { return cmp.Compare(g.counts[a], g.counts[b]) })
	case g.kind == kindAffinity && !g.inverse:
		for _, d := range domains {
			if allowed(d) && g.counts[d] > 0 {
				c.viable = append(c.viable, d)
			}
		}
		c.bootstrap = len(c.viable) == 0 && c.self
	default: // anti-affinity, own or inverse
		for _, d := range domains {
			if allowed(d) && g.counts[d] == 0 {
				c.viable = append(c.viable, d)
			}
		}
	}
}

// eligible says whether a domain counts for a spread constraint, as Karpenter's domain groups
// decide: something offering it must satisfy the pod's hard node constraints
// (nodeAffinityPolicy Honor) and, under nodeTaintsPolicy Honor, have taints the pod tolerates.
// A domain only a NodePool the pod cannot use offers would otherwise hold the minimum at zero.
func (t *topology) eligible(g *topoGroup, domain string) bool {
	if v, ok := g.eligible[domain]; ok {
		return v
	}
	ok := false
	// A provider offering several domains (a NodePool over every zone) offers this one only: the
	// pod's affinity must allow it there.
	in := requirements.New(g.key, corev1.NodeSelectorOpIn, domain)
	for _, p := range t.providers[g.key][domain] {
		if g.filter.matches(p.reqs.Add(in), p.taints, t.wellKnown) {
			ok = true
			break
		}
	}
	if g.eligible == nil {
		g.eligible = map[string]bool{}
	}
	g.eligible[domain] = ok
	return ok
}

// topologyVerdict says why a candidate failed the topology checks; permanent verdicts (anti-
// affinity) hold for as long as the solve runs, the others may change as pods are placed.
type topologyVerdict struct {
	check     *check
	permanent bool
}

// apply narrows a candidate's requirements by the checks, or says which check fails. An existing
// node (existing) is in no domain of a key its labels lack: kube-scheduler finds it infeasible
// for a spread or an affinity on that key, and an anti-affinity there has nothing to conflict with.
func (t *topology) apply(checks []check, reqs requirements.Requirements, existing bool) ([]*requirements.Requirement, *topologyVerdict) {
	var add []*requirements.Requirement
	for i := range checks {
		c := &checks[i]
		g := c.g
		nodeDomains := reqs.Get(g.key)
		if existing && nodeDomains == nil && g.key != corev1.LabelHostname {
			if g.kind == kindAntiAffinity {
				continue
			}
			return nil, &topologyVerdict{check: c, permanent: true}
		}
		if g.key == corev1.LabelHostname {
			host := ""
			if nodeDomains != nil {
				host = nodeDomains.Any()
			}
			n := g.counts[host]
			ok := true
			switch {
			case g.kind == kindSpread:
				self := int32(0)
				if c.self {
					self = 1
				}
				ok = n+self <= g.maxSkew // hostname domains have a minimum of 0: a new node is always possible
			case g.kind == kindAffinity && !g.inverse:
				ok = n > 0 || c.bootstrap
			default:
				ok = n == 0
			}
			if !ok {
				return nil, &topologyVerdict{check: c, permanent: g.kind == kindAntiAffinity}
			}
			continue
		}
		has := func(d string) bool { return nodeDomains == nil || nodeDomains.Has(d) }
		var picked []string
		switch {
		case g.kind == kindSpread:
			for _, d := range c.viable {
				if has(d) {
					picked = []string{d}
					break
				}
			}
		case c.bootstrap:
			for _, d := range t.domains[g.key] {
				if has(d) && (c.podDomains == nil || c.podDomains.Has(d)) {
					picked = []string{d}
					break
				}
			}
		default:
			for _, d := range c.viable {
				if has(d) {
					picked = append(picked, d)
				}
			}
		}
		if len(picked) == 0 {
			return nil, &topologyVerdict{check: c, permanent: g.kind == kindAntiAffinity && nodeDomains != nil && nodeDomains.Len() == 1}
		}
		add = append(add, requirements.New(g.key, corev1.NodeSelectorOpIn, picked...))
	}
	return add, nil
}

// explain prints why a check fails, with the counts per domain.
func (c *check) explain(t *topology) string {
	g := c.g
	if g.key == corev1.LabelHostname {
		switch {
		case g.kind == kindSpread:
			return fmt.Sprintf("%s: every node it could use already has %d matching pods", g.desc, g.maxSkew)
		case g.kind == kindAffinity && !g.inverse:
			return fmt.Sprintf("%s: no node it could use runs a matching pod", g.desc)
		default:
			return fmt.Sprintf("%s: every node it could use already runs a matching pod", g.desc)
		}
	}
	var counts []string
	for _, d := range t.domains[g.key] {
		counts = append(counts, fmt.Sprintf("%s=%d", d, g.counts[d]))
	}
	where := "no domain"
	if len(c.viable) > 0 {
		where = "only " + strings.Join(c.viable, ", ")
	}
	return fmt.Sprintf("%s allows %s, which this NodePool cannot provide (matching pods per domain: %s)",
		g.desc, where, strings.Join(counts, " "))
}

// selectorFor turns a label selector into a selector, ANDing matchLabelKeys' values from the pod.
func selectorFor(ls *metav1.LabelSelector, matchLabelKeys, mismatchLabelKeys []string, podLabels map[string]string) (labels.Selector, error) {
	if ls == nil {
		return labels.Nothing(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, err
	}
	for _, k := range matchLabelKeys {
		if v, ok := podLabels[k]; ok {
			r, err := labels.NewRequirement(k, "=", []string{v})
			if err != nil {
				return nil, err
			}
			sel = sel.Add(*r)
		}
	}
	for _, k := range mismatchLabelKeys {
		if v, ok := podLabels[k]; ok {
			r, err := labels.NewRequirement(k, "!=", []string{v})
			if err != nil {
				return nil, err
			}
			sel = sel.Add(*r)
		}
	}
	return sel, nil
}
