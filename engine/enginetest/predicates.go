package enginetest

import (
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodepilot/nodepilot/engine/pods"
)

// nodeLoad is what the active pods bound to a node take from it.
type nodeLoad struct {
	requests corev1.ResourceList
	pods     []*corev1.Pod
}

func (l *nodeLoad) add(p *corev1.Pod) {
	if l.requests == nil {
		l.requests = corev1.ResourceList{}
	}
	for name, q := range podRequests(p) {
		sum := l.requests[name]
		sum.Add(q)
		l.requests[name] = sum
	}
	l.pods = append(l.pods, p)
}

// loads sums, per node name, the active pods bound to each node.
func loads(all []*corev1.Pod) map[string]*nodeLoad {
	out := map[string]*nodeLoad{}
	for _, p := range all {
		if !pods.IsActive(p) {
			continue
		}
		if out[p.Spec.NodeName] == nil {
			out[p.Spec.NodeName] = &nodeLoad{}
		}
		out[p.Spec.NodeName].add(p)
	}
	return out
}

// podRequests is what a pod requests, as the scheduler counts it (containers, init containers,
// overhead).
func podRequests(p *corev1.Pod) corev1.ResourceList {
	return pods.Requests(p)
}

// unfit says why the scheduler would not bind a pod (requesting requests) to a node, in
// kube-scheduler's words, or "" when it would: the node must be Ready and schedulable, its NoSchedule and NoExecute taints
// tolerated, the pod's node selector and required node affinity matched, no required
// anti-affinity on the hostname violated (either way), and the pod's requests and one more pod
// must fit in allocatable less what the node's active pods request.
func unfit(p *corev1.Pod, requests corev1.ResourceList, n *corev1.Node, load *nodeLoad) string {
	if load == nil {
		load = &nodeLoad{}
	}
	switch {
	case nodeReadyStatus(n) != corev1.ConditionTrue:
		return "node(s) were not ready"
	case n.Spec.Unschedulable:
		return "node(s) were unschedulable"
	}
	if t, bad := untolerated(p.Spec.Tolerations, n.Spec.Taints); bad {
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
	}
	if !matchesNodeAffinity(p, n) {
		return "node(s) didn't match Pod's node affinity/selector"
	}
	if antiAffinityConflict(p, load.pods) {
		return "node(s) didn't match pod anti-affinity rules"
	}
	for name, q := range requests {
		if q.IsZero() {
			continue
		}
		free := n.Status.Allocatable[name].DeepCopy()
		free.Sub(load.requests[name])
		if q.Cmp(free) > 0 {
			return "Insufficient " + string(name)
		}
	}
	if limit, ok := n.Status.Allocatable[corev1.ResourcePods]; ok && int64(len(load.pods)+1) > limit.Value() {
		return "Too many pods"
	}
	return ""
}

// untolerated returns the first NoSchedule or NoExecute taint the tolerations do not tolerate.
func untolerated(tolerations []corev1.Toleration, taints []corev1.Taint) (corev1.Taint, bool) {
	return corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), taints, tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
}

// matchesNodeAffinity reports whether a node satisfies the pod's node selector and required
// node affinity, with kube-scheduler's own code (an oracle independent of the engine's
// requirements algebra).
func matchesNodeAffinity(p *corev1.Pod, n *corev1.Node) bool {
	ok, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(n)
	return err == nil && ok
}

// antiAffinityConflict reports whether placing p next to others breaks a required pod
// anti-affinity term on the hostname, p's or one of theirs. Other topology keys, affinity and
// namespace selectors are not considered.
func antiAffinityConflict(p *corev1.Pod, others []*corev1.Pod) bool {
	for _, q := range others {
		if repels(p, q) || repels(q, p) {
			return true
		}
	}
	return false
}

// repels reports whether a hostname anti-affinity term of a selects b.
func repels(a, b *corev1.Pod) bool {
	if a.Spec.Affinity == nil || a.Spec.Affinity.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != corev1.LabelHostname {
			continue
		}
		namespaces := term.Namespaces
		if len(namespaces) == 0 {
			namespaces = []string{a.Namespace}
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err == nil && slices.Contains(namespaces, b.Namespace) && sel.Matches(labels.Set(b.Labels)) {
			return true
		}
	}
	return false
}
