package scheduling

import (
	"fmt"
	"hash/maphash"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	podutil "github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// podData is a pod as the solver sees it. Relaxation edits the copies of the pod's soft
// constraints held here, never the pod itself.
type podData struct {
	pod      *corev1.Pod
	key      string
	requests vec

	affinity    *corev1.Affinity
	spreads     []corev1.TopologySpreadConstraint
	tolerations []corev1.Toleration
	hostPorts   []hostPort
	// volumes are where the volumes it claims let it run (Input.Volumes).
	volumes requirements.Requirements

	// Derived from the soft-constraint state by derive.
	reqs        requirements.Requirements // node selector, first required term, heaviest preference, volumes
	owned       []*topoGroup              // spread, affinity and anti-affinity groups it must satisfy
	ownsInverse []*topoGroup              // inverse groups its required anti-affinity terms feed
	sig         uint64                    // equal for pods the solver cannot tell apart
	relaxed     []string                  // what relaxation dropped, in order
}

// requests is what a pod requests (pods.Requests: containers, init containers, the larger of
// the two phases, and pod overhead), from the input's Requests when it keeps them.
func (in *Input) requests(p *corev1.Pod) corev1.ResourceList {
	if in.Requests != nil {
		return in.Requests(p)
	}
	return podutil.Requests(p)
}

// podVec is a pod's requests as a vector, with the pod slot it takes.
func (s *space) podVec(requests corev1.ResourceList) vec {
	v := s.vec(requests)
	v[s.index[corev1.ResourcePods]] = 1
	return v
}

func newPodData(p *corev1.Pod, requests vec, ignorePreferences bool) *podData {
	d := &podData{
		pod:         p,
		key:         p.Namespace + "/" + p.Name,
		requests:    requests,
		affinity:    p.Spec.Affinity.DeepCopy(),
		spreads:     slices.Clone(p.Spec.TopologySpreadConstraints),
		tolerations: slices.Clone(p.Spec.Tolerations),
		hostPorts:   hostPortsOf(p),
	}
	if ignorePreferences {
		d.dropPreferences()
	}
	return d
}

// dropPreferences removes every soft constraint, for PreferencesIgnore.
func (d *podData) dropPreferences() {
	if a := d.affinity; a != nil {
		if a.NodeAffinity != nil {
			a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
		}
		if a.PodAffinity != nil {
			a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
		}
		if a.PodAntiAffinity != nil {
			a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
		}
	}
	d.spreads = slices.DeleteFunc(d.spreads, func(c corev1.TopologySpreadConstraint) bool {
		return c.WhenUnsatisfiable == corev1.ScheduleAnyway
	})
}

// nodeRequirements are what the pod asks of a node's labels now: its node selector, the first of
// its required node affinity terms, and its heaviest preferred term, as Karpenter treats them.
func (d *podData) nodeRequirements() requirements.Requirements {
	reqs := requirements.FromLabels(d.pod.Spec.NodeSelector)
	na := d.nodeAffinity()
	if na == nil {
		return reqs
	}
	if pref := na.PreferredDuringSchedulingIgnoredDuringExecution; len(pref) > 0 {
		heaviest := slices.MaxFunc(pref, func(a, b corev1.PreferredSchedulingTerm) int { return int(a.Weight - b.Weight) })
		reqs = reqs.Merge(requirements.FromNodeSelector(heaviest.Preference.MatchExpressions))
	}
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil && len(req.NodeSelectorTerms) > 0 {
		reqs = reqs.Merge(requirements.FromNodeSelector(req.NodeSelectorTerms[0].MatchExpressions))
	}
	return reqs
}

// strictTerms are the pod's hard node constraints, one Requirements per ORed term (for the
// nodeAffinityPolicy of spread constraints).
func (d *podData) strictTerms() []requirements.Requirements {
	base := requirements.FromLabels(d.pod.Spec.NodeSelector)
	na := d.nodeAffinity()
	if na == nil || na.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		if base.Len() == 0 {
			return nil
		}
		return []requirements.Requirements{base}
	}
	var terms []requirements.Requirements
	for _, t := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		terms = append(terms, base.Merge(requirements.FromNodeSelector(t.MatchExpressions)))
	}
	return terms
}

func (d *podData) nodeAffinity() *corev1.NodeAffinity {
	if d.affinity == nil {
		return nil
	}
	return d.affinity.NodeAffinity
}

// relax drops one soft constraint in Karpenter's order and reports what it dropped, or "" when
// nothing is left to relax. Tolerating PreferNoSchedule taints, the last step, is skipped when
// there are none to tolerate.
func (d *podData) relax(preferNoScheduleTaints bool) string {
	steps := []func() string{
		d.dropRequiredNodeAffinityTerm,
		d.dropPreferredPodAffinityTerm,
		d.dropPreferredPodAntiAffinityTerm,
		d.dropPreferredNodeAffinityTerm,
		d.dropScheduleAnywaySpread,
	}
	if preferNoScheduleTaints {
		steps = append(steps, d.toleratePreferNoSchedule)
	}
	for _, step := range steps {
		if what := step(); what != "" {
			d.relaxed = append(d.relaxed, what)
			return what
		}
	}
	return ""
}

func (d *podData) dropRequiredNodeAffinityTerm() string {
	na := d.nodeAffinity()
	if na == nil || na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) <= 1 {
		return ""
	}
	na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms[1:]
	return "the first of its required node affinity terms"
}

func (d *podData) dropPreferredPodAffinityTerm() string {
	if d.affinity == nil || d.affinity.PodAffinity == nil ||
		!dropHeaviest(&d.affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, podTermWeight) {
		return ""
	}
	return "its heaviest preferred pod affinity term"
}

func (d *podData) dropPreferredPodAntiAffinityTerm() string {
	if d.affinity == nil || d.affinity.PodAntiAffinity == nil ||
		!dropHeaviest(&d.affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, podTermWeight) {
		return ""
	}
	return "its heaviest preferred pod anti-affinity term"
}

func (d *podData) dropPreferredNodeAffinityTerm() string {
	na := d.nodeAffinity()
	if na == nil || !dropHeaviest(&na.PreferredDuringSchedulingIgnoredDuringExecution, func(t corev1.PreferredSchedulingTerm) int32 { return t.Weight }) {
		return ""
	}
	return "its heaviest preferred node affinity term"
}

func podTermWeight(t corev1.WeightedPodAffinityTerm) int32 { return t.Weight }

// dropHeaviest removes the first of the heaviest terms, from a copy (the slice may be the pod's),
// and reports whether there was a term to remove.
func dropHeaviest[T any](terms *[]T, weight func(T) int32) bool {
	if len(*terms) == 0 {
		return false
	}
	i := 0
	for j, t := range *terms {
		if weight(t) > weight((*terms)[i]) {
			i = j
		}
	}
	*terms = slices.Delete(slices.Clone(*terms), i, i+1)
	return true
}

func (d *podData) dropScheduleAnywaySpread() string {
	for i, c := range d.spreads {
		if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
			d.spreads = slices.Delete(slices.Clone(d.spreads), i, i+1)
			return fmt.Sprintf("its ScheduleAnyway topology spread on %s", c.TopologyKey)
		}
	}
	return ""
}

func (d *podData) toleratePreferNoSchedule() string {
	for _, t := range d.tolerations {
		if t.Operator == corev1.TolerationOpExists && t.Key == "" && t.Effect == corev1.TaintEffectPreferNoSchedule {
			return ""
		}
	}
	d.tolerations = append(d.tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule})
	return "PreferNoSchedule taints (now tolerated)"
}

// computeSignature hashes everything that decides where the pod may go, so that pods that
// cannot be told apart share the solver's caches.
func (d *podData) computeSignature(seed maphash.Seed) {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(labelKey(d.pod.Namespace, d.pod.Labels))
	h.WriteByte(0)
	h.WriteString(d.reqs.String())
	h.WriteByte(0)
	for _, t := range d.tolerations {
		fmt.Fprintf(&h, "%s|%s|%s|%s|", t.Key, t.Operator, t.Value, t.Effect)
	}
	for _, g := range d.owned {
		fmt.Fprintf(&h, "g%d|", g.id)
	}
	for _, v := range d.requests {
		fmt.Fprintf(&h, "%d,", v)
	}
	for _, p := range d.hostPorts {
		fmt.Fprintf(&h, "%s|", p)
	}
	d.sig = h.Sum64()
}

// tolerates reports whether tolerations cover every taint.
func tolerates(tolerations []corev1.Toleration, taints []corev1.Taint) bool {
	return untolerated(tolerations, taints) == nil
}

// untolerated returns the first taint the tolerations do not cover, PreferNoSchedule ones
// included (soft constraints are respected until relaxed), or nil.
func untolerated(tolerations []corev1.Toleration, taints []corev1.Taint) *corev1.Taint {
	return podutil.UntoleratedTaint(tolerations, taints, nil)
}

// hostPort is a port a pod binds on its node.
type hostPort struct {
	ip       string
	port     int32
	protocol corev1.Protocol
}

func (h hostPort) String() string { return fmt.Sprintf("%s/%s:%d", h.protocol, h.ip, h.port) }

func (h hostPort) conflicts(o hostPort) bool {
	if h.port != o.port || h.protocol != o.protocol {
		return false
	}
	return h.ip == o.ip || h.ip == "0.0.0.0" || o.ip == "0.0.0.0"
}

func hostPortsOf(p *corev1.Pod) []hostPort {
	var out []hostPort
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs { // by index: a Container is large to copy, and most pods have no host port
			for _, port := range cs[i].Ports {
				if port.HostPort <= 0 {
					continue
				}
				ip, proto := port.HostIP, port.Protocol
				if ip == "" {
					ip = "0.0.0.0"
				}
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				out = append(out, hostPort{ip: ip, port: port.HostPort, protocol: proto})
			}
		}
	}
	return out
}

// namespacesFor resolves an affinity term's namespaces: those listed plus those its selector
// matches; the pod's own when neither is given; nil (every namespace) for an empty selector.
func namespacesFor(t corev1.PodAffinityTerm, podNamespace string, nsLabels map[string]map[string]string) (sets.Set[string], error) {
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		return sets.New(podNamespace), nil
	}
	out := sets.New(t.Namespaces...)
	if t.NamespaceSelector != nil {
		if len(t.NamespaceSelector.MatchLabels) == 0 && len(t.NamespaceSelector.MatchExpressions) == 0 {
			return nil, nil
		}
		sel, err := selectorFor(t.NamespaceSelector, nil, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("namespaceSelector: %w", err)
		}
		for ns, l := range nsLabels {
			if sel.Matches(labelsSet(l)) {
				out.Insert(ns)
			}
		}
	}
	return out, nil
}
