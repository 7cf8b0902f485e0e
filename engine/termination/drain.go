package termination

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Tier orders a drain as Karpenter does: non-critical pods, then non-critical DaemonSet pods,
// then critical pods, then critical DaemonSet pods. A tier starts once the one before is gone.
func Tier(p *corev1.Pod) int {
	t := 0
	if pods.IsCritical(p) {
		t = 2
	}
	if pods.IsOwnedByDaemonSet(p) {
		t++
	}
	return t
}

// drain evicts the first tier that still has pods and returns how many pods the node must still
// lose (to evict, or terminating). Past the deadline, pods are deleted whatever their budgets and
// do-not-disrupt annotations say; before it, pods are deleted with a grace period cut to end
// at the deadline.
func (c *Controller) drain(ctx context.Context, sn *state.Node, deadline, now time.Time) int {
	var tiers [4][]*corev1.Pod
	left := c.terminatingOn(sn.Node.Name)
	for _, p := range sn.Pods {
		if pods.IsEvictable(p) {
			tiers[Tier(p)] = append(tiers[Tier(p)], p)
			left++
		}
	}
	for _, tier := range tiers {
		if len(tier) == 0 {
			continue
		}
		var evicted []*corev1.Pod
		var blocked []string
		for _, p := range tier {
			switch err := c.evict(ctx, p, deadline, now); {
			case err == nil:
				evicted = append(evicted, p)
			case executor.NotPerformed(err): // dry-run: the executor journaled the eviction it would make
			case errors.Is(err, errAsked): // evicted or deleted already, its watch event not yet come
			case errors.Is(err, state.ErrEvictionRefused), errors.Is(err, errDoNotDisrupt):
				blocked = append(blocked, err.Error())
			case !apierrors.IsNotFound(err) && ctx.Err() == nil:
				blocked = append(blocked, fmt.Sprintf("evicting %s/%s: %v", p.Namespace, p.Name, err))
			}
		}
		c.report(sn, evicted, blocked, deadline, now)
		break
	}
	return left
}

var (
	errDoNotDisrupt = errors.New("its karpenter.sh/do-not-disrupt annotation holds it until the termination grace period ends")
	errAsked        = errors.New("evicted or deleted already")
)

// askedWait is how long a pod evicted or deleted is not asked again while the cluster state still
// shows it unchanged: far longer than a watch event takes.
const askedWait = 10 * time.Second

// evict removes one pod, by eviction or, when the deadline forces it, by deletion.
func (c *Controller) evict(ctx context.Context, p *corev1.Pod, deadline, now time.Time) error {
	key := pods.Key(p)
	r, tried := c.retries[key]
	if tried && r.asked && now.Before(r.next) {
		return errAsked
	}
	var err error
	switch grace, force := forcedGrace(p, deadline, now); {
	case force:
		err = c.exec.DeletePod(ctx, p, &grace)
	case pods.BlocksDisruption(p, now):
		return fmt.Errorf("pod %s: %w", key, errDoNotDisrupt)
	case tried && now.Before(r.next): // refused lately: said again until the backoff ends
		return r.refused
	default:
		err = c.exec.Evict(ctx, p)
	}
	switch {
	case errors.Is(err, state.ErrEvictionRefused):
		r.delay = min(max(2*r.delay, time.Second), 30*time.Second)
		r.next, r.refused, r.asked = now.Add(r.delay), err, false
		c.retries[key] = r
	case err == nil:
		c.retries[key] = retry{next: now.Add(askedWait), asked: true}
	default:
		delete(c.retries, key)
	}
	return err
}

// forcedGrace says whether the deadline forces deleting the pod, and with what grace period so
// that it ends by the deadline.
func forcedGrace(p *corev1.Pod, deadline, now time.Time) (int64, bool) {
	if deadline.IsZero() {
		return 0, false
	}
	podGrace := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if p.Spec.TerminationGracePeriodSeconds != nil {
		podGrace = *p.Spec.TerminationGracePeriodSeconds
	}
	remaining := int64(deadline.Sub(now).Seconds())
	if remaining > podGrace {
		return 0, false
	}
	return max(remaining, 0), true
}

// terminatingOn counts the pods on a node that are being deleted: the drain waits for them.
func (c *Controller) terminatingOn(node string) int {
	n := 0
	for _, p := range c.cluster.Snapshot().Pods {
		if p.Spec.NodeName == node && pods.IsTerminating(p) && !pods.IsTerminal(p) && !pods.IsMirror(p) {
			n++
		}
	}
	return n
}

// report journals what a drain pass did: the pods evicted (with an event each) and, as the node's
// current blocker, why the others stay.
func (c *Controller) report(sn *state.Node, evicted []*corev1.Pod, blocked []string, deadline, now time.Time) {
	nc := sn.NodeClaim
	if len(evicted) > 0 {
		events := make([]journal.Event, len(evicted))
		names := make([]string, len(evicted))
		for i, p := range evicted {
			names[i] = p.Namespace + "/" + p.Name
			events[i] = journal.Event{Object: p, Type: corev1.EventTypeNormal, Reason: journal.ReasonEvicted, Message: "Evicted pod: draining node " + sn.Node.Name}
			if grace, forced := forcedGrace(p, deadline, now); forced {
				events[i] = journal.Event{Object: p, Type: corev1.EventTypeNormal, Reason: journal.ReasonDisrupted, Message: fmt.Sprintf(
					"Deleting the pod to accommodate the terminationTime %s of the node. The pod was granted %d seconds of grace-period of its %d terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.",
					deadline.UTC().Format(time.RFC3339), grace, ptr.Deref(p.Spec.TerminationGracePeriodSeconds, corev1.DefaultTerminationGracePeriodSeconds))}
			}
		}
		var why string
		if cond := meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeDisruptionReason); cond != nil && cond.Status == metav1.ConditionTrue {
			why = cond.Reason
		}
		c.journal.Record(journal.Entry{Time: now, Kind: journal.KindTermination, Reason: journal.ReasonEvicted, Nodes: []string{sn.Node.Name},
			NodeClaims: []string{nc.Name}, NodePool: sn.NodePool(), Pods: names, Events: events, DisruptionReason: why,
			Message: fmt.Sprintf("evicted %d pod(s) from node %s", len(evicted), sn.Node.Name)})
	}
	if len(blocked) > 0 {
		msg := fmt.Sprintf("draining node %s: %d pod(s) cannot leave yet: %s", sn.Node.Name, len(blocked), strings.Join(firstN(blocked, 3), "; "))
		reason := disruption.BlockedPDB
		if strings.Contains(blocked[0], errDoNotDisrupt.Error()) {
			reason = disruption.BlockedDoNotDisrupt
		}
		c.journal.Block(sn.Node.Name, journal.Entry{Time: now, Reason: reason, NodeClaims: []string{nc.Name}, NodePool: sn.NodePool(),
			Message: msg, Until: deadline, Forbids: disruption.Forbidden(reason),
			Events: []journal.Event{{Object: sn.Node, Type: corev1.EventTypeWarning, Reason: journal.ReasonFailedDraining, Message: msg}}})
	}
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
}
