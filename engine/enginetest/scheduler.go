package enginetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/pods"
)

// Scheduler is a simple kube-scheduler. Step binds each pending pod (not bound, not
// terminating, not finished; highest priority first, then oldest) to a node it fits (see the
// predicates below), preferring its status.nominatedNodeName, otherwise the node left with the
// most free CPU and memory (least allocated), ties by name; WithBalancedAllocation adds
// kube-scheduler's BalancedAllocation score, weighed as its default profile weighs it. A pod
// that fits nowhere gets PodScheduled=False with reason Unschedulable and a message counting
// why, written only when it is not marked so already, so that repeated steps cause no churn.
//
// Predicates: the node is Ready and not cordoned, its NoSchedule and NoExecute taints are
// tolerated, the pod's node selector and required node affinity match (kube-scheduler's own
// matcher), no required pod anti-affinity on kubernetes.io/hostname is broken either way, and
// the pod's requests (containers, init containers, overhead) and one more pod fit in allocatable
// less what the node's active pods request. Ignored: topology spread, pod affinity, other
// anti-affinity topologies, preferences, host ports, volumes, preemption.
type Scheduler struct {
	api      *API
	clock    clock.PassiveClock
	balanced bool
}

// errNotPending stops a status update of a pod that was bound or deleted meanwhile.
var errNotPending = errors.New("pod no longer pending")

// Step schedules every pending pod once and reports whether it changed anything. Pods bound or
// deleted meanwhile are skipped; other errors are returned.
func (s *Scheduler) Step(ctx context.Context) (bool, error) {
	all := s.api.podsShared()
	var pending []*corev1.Pod
	for _, p := range all {
		if p.Spec.NodeName == "" && !pods.IsTerminating(p) && !pods.IsTerminal(p) {
			pending = append(pending, p)
		}
	}
	if len(pending) == 0 {
		return false, nil
	}
	nodes := s.api.nodesShared()
	load := loads(all)
	slices.SortStableFunc(pending, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(corev1helpers.PodPriority(b), corev1helpers.PodPriority(a)),
			a.CreationTimestamp.Compare(b.CreationTimestamp.Time))
	})
	changed := false
	var errs []error
	for _, p := range pending {
		node, why := s.place(p, nodes, load)
		if node != nil {
			err := s.api.Bind(ctx, p.Namespace, p.Name, node.Name)
			switch {
			case err == nil:
				changed = true
				if load[node.Name] == nil {
					load[node.Name] = &nodeLoad{}
				}
				load[node.Name].add(p)
			case !apierrors.IsNotFound(err) && !apierrors.IsConflict(err):
				errs = append(errs, err)
			}
			continue
		}
		if unschedulable(p) {
			continue
		}
		_, err := s.api.UpdatePodStatus(ctx, p.Namespace, p.Name, func(p *corev1.Pod) error {
			if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
				return errNotPending
			}
			setPodCondition(p, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, Message: why}, s.clock.Now())
			return nil
		})
		switch {
		case err == nil:
			changed = true
		case !errors.Is(err, errNotPending) && !apierrors.IsNotFound(err):
			errs = append(errs, err)
		}
	}
	return changed, errors.Join(errs...)
}

// place picks the node for a pod, or says why there is none.
func (s *Scheduler) place(p *corev1.Pod, nodes []*corev1.Node, load map[string]*nodeLoad) (*corev1.Node, string) {
	if len(nodes) == 0 {
		return nil, "no nodes available to schedule pods"
	}
	var best *corev1.Node
	bestScore := -1.0
	reasons := map[string]int{}
	requests := podRequests(p)
	for _, n := range nodes {
		if why := unfit(p, requests, n, load[n.Name]); why != "" {
			reasons[why]++
			continue
		}
		if n.Name == p.Status.NominatedNodeName {
			return n, ""
		}
		if score := s.score(requests, n, load[n.Name]); score > bestScore {
			best, bestScore = n, score
		}
	}
	if best != nil {
		return best, ""
	}
	parts := make([]string, 0, len(reasons))
	for why, count := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", count, why))
	}
	slices.Sort(parts)
	return nil, fmt.Sprintf("0/%d nodes are available: %s.", len(nodes), strings.Join(parts, ", "))
}

// score rates a node for a pod requesting requests: the share of CPU and memory (averaged) left
// free after placing it, kube-scheduler's LeastAllocated, plus, with balanced, one less half the
// difference between the shares of CPU and of memory used (the standard deviation of the two),
// kube-scheduler's BalancedAllocation.
func (s *Scheduler) score(requests corev1.ResourceList, n *corev1.Node, load *nodeLoad) float64 {
	if load == nil {
		load = &nodeLoad{}
	}
	var used []float64
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		alloc := n.Status.Allocatable[name]
		if alloc.IsZero() {
			continue
		}
		u := load.requests[name].DeepCopy()
		u.Add(requests[name])
		used = append(used, float64(u.MilliValue())/float64(alloc.MilliValue()))
	}
	free := 0.0
	for _, u := range used {
		free += 1 - u
	}
	score := free / 2
	if s.balanced && len(used) == 2 {
		score += 1 - math.Abs(min(used[0], 1)-min(used[1], 1))/2
	}
	return score
}

// unschedulable reports whether a pod is marked Unschedulable already.
func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}
