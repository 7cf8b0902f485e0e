package scheduling

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/requirements"
)

// ReasonInvalidPod marks a pod whose own spec cannot be evaluated (a malformed selector).
const ReasonInvalidPod = "InvalidPod"

// Keys of Reason.Excluded.
const (
	ExcludedByOffering    = "no offering in the allowed zones and capacity types"
	ExcludedTooSmall      = "too small"
	ExcludedByLimits      = "over the NodePool's limits"
	excludedByRequirePfx  = "excluded by the pod's requirement on "
	excludedByNodePoolPfx = "excluded by the NodePool's requirement on "
)

// explain says, per NodePool, why a pod cannot go to a new NodeClaim from it now.
func (s *scheduler) explain(p *podData, timedOut bool) []Reason {
	if err, ok := s.ignored[p]; ok {
		code := ReasonIgnored
		if errors.Is(err, errNotForKarpenter) {
			code = ReasonNotForKarpenter
		}
		hint := "use well-known labels or your own, not kubernetes.io/hostname nor the karpenter.sh and karpenter.k8s.aws domains"
		var fix interface{ Hint() string }
		switch {
		case errors.As(err, &fix):
			hint = fix.Hint()
		case errors.As(err, new(volumeError)):
			hint = "create what it names, or correct the pod's volumes"
		}
		// The error alone, as Karpenter's FailedScheduling event carries it.
		return []Reason{{Code: code, Message: err.Error(), Hint: hint}}
	}
	if msg, bad := s.failed[p]; bad {
		return []Reason{{Code: ReasonInvalidPod, Message: "the pod's spec cannot be evaluated: " + msg,
			Hint: "fix the pod's selector"}}
	}
	if timedOut {
		return []Reason{{Code: ReasonSolveTimedOut, Message: "the solve ran out of time before it could place this pod",
			Hint: "it is retried in the next batch"}}
	}
	if len(s.templates) == 0 && len(s.in.Unlaunchable) == 0 {
		return []Reason{{Code: ReasonNoNodePool, Message: "no NodePool exists to launch a node from",
			Hint: "create a NodePool"}}
	}
	checks := s.topo.prepare(p)
	reasons := make([]Reason, 0, len(s.templates)+len(s.in.Unlaunchable))
	for _, t := range s.templates {
		r := s.explainTemplate(t, p, checks)
		r.NodePool = t.pool.Name
		if len(p.relaxed) > 0 {
			r.Message += fmt.Sprintf(" (after relaxing %s)", strings.Join(p.relaxed, ", then "))
		}
		reasons = append(reasons, r)
	}
	return append(reasons, s.in.Unlaunchable...)
}

func (s *scheduler) explainTemplate(t *template, p *podData, checks []check) Reason {
	if len(t.types) == 0 {
		return Reason{Code: ReasonNoInstanceTypes, Excluded: t.excluded,
			Message: fmt.Sprintf("no instance type of its node class passes the NodePool's own requirements and offerings (%d types; %s)",
				len(t.pool.InstanceTypes), countsText(t.excluded)),
			Hint: "widen the NodePool's requirements"}
	}
	if portsConflict(t.ports, p.hostPorts) {
		return Reason{Code: ReasonHostPortConflict,
			Message: fmt.Sprintf("a DaemonSet that runs on its nodes binds a host port the pod needs (%s)", portsText(p.hostPorts)),
			Hint:    "change the pod's hostPort, or keep the DaemonSet off this NodePool"}
	}
	if taint := untolerated(p.tolerations, t.pool.Taints); taint != nil {
		return Reason{Code: ReasonTaintNotTolerated,
			Message: fmt.Sprintf("its nodes are tainted %s and the pod does not tolerate that", taintText(*taint)),
			Hint:    fmt.Sprintf("add a toleration for %s to the pod, or let another NodePool take it", taintText(*taint))}
	}
	if c := t.reqs.Compatible(p.reqs, s.wellKnown); c != nil {
		r := Reason{Code: ReasonRequirementConflict, Message: conflictText(c),
			Hint: fmt.Sprintf("change the pod's node selector or affinity on %s, or the NodePool's requirements", c.Key)}
		if p.volumes.Has(c.Key) {
			r.Message += " (its persistent volumes can attach only there)"
			r.Hint = fmt.Sprintf("let the NodePool launch where the pod's volumes are (%s), or give the pod volumes where the NodePool launches", c.Key)
		}
		return r
	}
	nc := newNodeClaim(s, t)
	reqs := nc.reqs.Merge(p.reqs)
	if len(checks) > 0 {
		add, v := s.topo.apply(checks, reqs, false)
		if v != nil {
			return Reason{Code: ReasonTopologyUnsatisfiable, Message: v.check.explain(s.topo),
				Hint: "add capacity in another domain, or loosen the constraint (maxSkew, whenUnsatisfiable: ScheduleAnyway)"}
		}
		reqs = reqs.Add(add...)
	}
	return s.explainTypes(t, p, reqs)
}

// portsText lists host ports for a message.
func portsText(ports []hostPort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = p.String()
	}
	return strings.Join(parts, ", ")
}

// explainTypes classifies the NodePool's instance types by the first criterion each fails.
func (s *scheduler) explainTypes(t *template, p *podData, reqs requirements.Requirements) Reason {
	excluded := maps.Clone(t.excluded)
	remaining := s.remaining[t.index]
	largest := make(vec, len(s.space.names))
	var matching, offered, bigEnough, withinLimits int
	smallestFit := -1
	for i, it := range t.types {
		if c := it.Requirements.Intersects(reqs); c != nil {
			excluded[excludedByRequirePfx+c.Key]++
			continue
		}
		matching++
		if !it.Offerings.HasCompatible(reqs) {
			excluded[ExcludedByOffering]++
			continue
		}
		offered++
		largest.maxInPlace(t.alloc[i])
		if !fits(p.requests, t.alloc[i]) {
			excluded[ExcludedTooSmall]++
			continue
		}
		bigEnough++
		if smallestFit < 0 {
			smallestFit = i
		}
		if remaining != nil && !fits(t.capacity[i], remaining) {
			excluded[ExcludedByLimits]++
			continue
		}
		withinLimits++
	}
	r := Reason{Excluded: excluded}
	switch {
	case matching == 0:
		r.Code = ReasonRequirementConflict
		r.Message = fmt.Sprintf("no instance type has the labels the pod asks for (%s): of %d types, %s",
			podAsks(p.reqs, excluded), len(t.pool.InstanceTypes), countsText(excluded))
		r.Hint = "ask for labels some instance type of this NodePool has"
	case offered == 0:
		r.Code = ReasonNoOffering
		r.Message = fmt.Sprintf("%d instance types match, but none is offered where the pod may run (%s)",
			matching, offeringScope(reqs))
		r.Hint = "allow another zone or capacity type, or wait for capacity to return"
	case bigEnough == 0:
		r.Code = ReasonInsufficientResources
		r.Message = fmt.Sprintf("no instance type is large enough for the pod's %s: of the %d types it could use, %s (after DaemonSet overhead)",
			s.space.format(p.requests), offered, s.shortfall(p.requests, largest))
		r.Hint = "lower the pod's requests or allow larger instance types"
	case withinLimits == 0:
		r.Code = ReasonLimitExceeded
		r.Message = s.limitText(t, smallestFit)
		r.Hint = "raise the NodePool's limits or free capacity in it"
	default:
		if mv := t.minValuesMet(reqs, s.fitting(newNodeClaim(s, t), t.all, p.requests)); mv != nil {
			r.Code = ReasonMinValues
			r.Message = fmt.Sprintf("%d instance types fit, but %s needs at least %d distinct values among them", withinLimits, mv.Key, *mv.MinValues)
			r.Hint = "lower minValues or widen the requirement"
			return r
		}
		r.Code = ReasonTopologyUnsatisfiable
		r.Message = fmt.Sprintf("%d instance types fit, but the pod's placement constraints could not be met together with the pods planned before it", withinLimits)
		r.Hint = "loosen the pod's topology spread or affinity"
	}
	return r
}

// shortfall names each resource the pod asks more of than any type offers, with the most offered.
func (s *scheduler) shortfall(requests, largest vec) string {
	var parts []string
	for i, x := range requests {
		if x <= largest[i] {
			continue
		}
		if largest[i] == 0 {
			parts = append(parts, fmt.Sprintf("none offers %s", s.space.names[i]))
		} else {
			parts = append(parts, fmt.Sprintf("the most %s any offers is %s", s.space.names[i], s.space.human(i, largest[i])))
		}
	}
	return strings.Join(parts, ", and ")
}

func (s *scheduler) limitText(t *template, smallest int) string {
	limits, usage := t.pool.Limits, t.pool.Usage
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		i, ok := s.space.index[name]
		if !ok {
			continue
		}
		limit := limits[name]
		used := usage[name]
		planned := value(name, limit) - s.remaining[t.index][i] - value(name, used)
		parts = append(parts, fmt.Sprintf("%s limit %s, %s in use, %s planned in this pass, the smallest fitting type (%s) adds %s",
			name, s.space.human(i, value(name, limit)), s.space.human(i, value(name, used)), s.space.human(i, planned),
			t.types[smallest].Name, s.space.human(i, t.capacity[smallest][i])))
	}
	return "the NodePool's limits are reached: " + strings.Join(parts, "; ")
}

func conflictText(c *requirements.Conflict) string {
	if c.Existing == nil {
		return fmt.Sprintf("the pod needs %s %s, a label this NodePool's nodes do not carry", c.Key, c.Incoming.ValuesString())
	}
	return fmt.Sprintf("the pod needs %s %s, the NodePool allows %s", c.Key, c.Incoming.ValuesString(), c.Existing.ValuesString())
}

func taintText(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// podAsks lists the pod's requirements on the keys that excluded types.
func podAsks(reqs requirements.Requirements, excluded map[string]int) string {
	var parts []string
	for _, r := range reqs.Items() {
		if excluded[excludedByRequirePfx+r.Key] > 0 {
			parts = append(parts, r.String())
		}
	}
	if len(parts) == 0 {
		return reqs.String()
	}
	return strings.Join(parts, ", ")
}

func offeringScope(reqs requirements.Requirements) string {
	var parts []string
	for _, key := range []string{corev1.LabelTopologyZone, karpv1.CapacityTypeLabelKey} {
		if r := reqs.Get(key); r != nil {
			parts = append(parts, r.String())
		}
	}
	if len(parts) == 0 {
		return "any zone, any capacity type"
	}
	return strings.Join(parts, ", ")
}

// countsText prints exclusion counts, largest first: "280 excluded by ..., 12 too small".
func countsText(counts map[string]int) string {
	keys := slices.Collect(maps.Keys(counts))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	if len(parts) == 0 {
		return "none excluded"
	}
	return strings.Join(parts, ", ")
}
