package termination

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Controller terminates NodeClaims being deleted: taint, drain through the Eviction API in four
// tiers, terminate the machine, then release the finalizers. Every step is read back from the
// cluster each pass, so a restart picks up where the last process stopped.
type Controller struct {
	cluster *state.Cluster
	exec    *executor.Executor
	journal *journal.Journal
	clock   clock.WithTicker
	// retries holds, per pod, when an eviction refused by a budget may be tried again, or when a
	// pod evicted or deleted is asked again if it still does not show its deletion.
	retries map[types.NamespacedName]retry
	// volumesUnknown is set once the journal said that volumes cannot be waited for.
	volumesUnknown bool
}

type retry struct {
	next  time.Time
	delay time.Duration
	// refused is the refusal, said again while waiting: the drain's blocker then reads the same
	// from pass to pass, and the journal records it once.
	refused error
	// asked says the pod was evicted or deleted: until next, a pass that still sees it before
	// the watch event does not ask (nor journal) again.
	asked bool
}

// New returns a termination controller that writes and terminates through exec.
func New(cluster *state.Cluster, exec *executor.Executor, j *journal.Journal, c clock.WithTicker) *Controller {
	return &Controller{cluster: cluster, exec: exec, journal: j, clock: c, retries: map[types.NamespacedName]retry{}}
}

// Reconcile takes one step for every NodeClaim being deleted.
func (c *Controller) Reconcile(ctx context.Context) {
	// Karpenter terminates instances in its NodeClaim lifecycle controller.
	ctx = cloudprovider.WithController(ctx, "nodeclaim.lifecycle")
	snap := c.cluster.Snapshot()
	if !snap.Synced {
		return
	}
	// A pod's entry outlives its last try by a minute: the pods that left are forgotten.
	maps.DeleteFunc(c.retries, func(_ types.NamespacedName, r retry) bool { return snap.Time.Sub(r.next) > time.Minute })
	for _, sn := range snap.Nodes {
		nc := sn.NodeClaim
		if nc == nil || nc.DeletionTimestamp == nil || !slices.Contains(nc.Finalizers, karpv1.TerminationFinalizer) {
			continue
		}
		if err := c.terminate(ctx, sn); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) && !executor.NotPerformed(err) {
			c.journal.Record(journal.Entry{Time: c.clock.Now(), Kind: journal.KindTermination, Reason: journal.ReasonError, NodeClaims: []string{nc.Name},
				Message: fmt.Sprintf("terminating nodeclaim %s: %v", nc.Name, err)})
		}
	}
}

func (c *Controller) terminate(ctx context.Context, sn *state.Node) error {
	nc, now := sn.NodeClaim, c.clock.Now()
	deadline := Deadline(nc)
	if sn.Node != nil {
		if err := c.taint(ctx, sn); err != nil {
			return err
		}
		if left := c.drain(ctx, sn, deadline, now); left > 0 {
			return nil
		}
		if err := c.setCondition(ctx, nc, karpv1.ConditionTypeDrained, metav1.ConditionTrue, "Drained", now); err != nil {
			return err
		}
		if waiting, err := c.awaitVolumes(ctx, sn, deadline, now); waiting || err != nil {
			return err
		}
	}
	// Terminate even a NodeClaim that never recorded a launch: the cloud finds a machine
	// launched for it by its tags, so a crash between launch and record leaves no orphan.
	err := c.exec.Terminate(ctx, nc, "(it is being deleted)")
	if executor.NotPerformed(err) {
		return err
	}
	if err != nil && !cloudprovider.IsNodeClaimNotFound(err) {
		return fmt.Errorf("terminating the instance: %w", err)
	}
	if err == nil {
		// The machine is shutting down; come back until the cloud says it is gone.
		if meta.IsStatusConditionTrue(nc.Status.Conditions, karpv1.ConditionTypeInstanceTerminating) {
			return nil
		}
		changed := false
		_, uerr := c.exec.UpdateNodeClaimStatus(ctx, nc.Name, "set InstanceTerminating=True", func(o *karpv1.NodeClaim) error {
			// The informer may lag behind this controller's own write: decide on the fresh object.
			if changed = !meta.IsStatusConditionTrue(o.Status.Conditions, karpv1.ConditionTypeInstanceTerminating); changed {
				meta.SetStatusCondition(&o.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeInstanceTerminating,
					Status: metav1.ConditionTrue, Reason: "InstanceTerminating", LastTransitionTime: metav1.NewTime(now)})
			}
			return nil
		})
		if changed {
			c.journal.Record(journal.Entry{Time: now, Kind: journal.KindTermination, Reason: journal.ReasonInstanceTerminating, NodeClaims: []string{nc.Name},
				Nodes: nodeName(sn), NodePool: sn.NodePool(), Message: fmt.Sprintf("terminating instance %s of nodeclaim %s", nc.Status.ProviderID, nc.Name)})
		}
		return uerr
	}
	if sn.Node != nil {
		if err := c.releaseNode(ctx, sn.Node.Name); err != nil {
			return err
		}
	}
	released := false
	if _, err := c.exec.UpdateNodeClaim(ctx, nc.Name, "remove finalizer "+karpv1.TerminationFinalizer, func(o *karpv1.NodeClaim) error {
		released = slices.Contains(o.Finalizers, karpv1.TerminationFinalizer)
		o.Finalizers = slices.DeleteFunc(o.Finalizers, func(f string) bool { return f == karpv1.TerminationFinalizer })
		return nil
	}); err != nil || !released {
		return err
	}
	c.journal.Unblock(sn.Name())
	capacityType, zone := sn.Placement()
	var took, lived, instanceTook time.Duration
	if nc.DeletionTimestamp != nil {
		took = now.Sub(nc.DeletionTimestamp.Time)
	}
	if sn.Node != nil {
		lived = now.Sub(sn.Node.CreationTimestamp.Time)
	}
	if cond := meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeInstanceTerminating); cond != nil && cond.Status == metav1.ConditionTrue {
		instanceTook = now.Sub(cond.LastTransitionTime.Time)
	}
	c.journal.Record(journal.Entry{Time: now, Kind: journal.KindTermination, Reason: journal.ReasonTerminated, NodeClaims: []string{nc.Name}, Nodes: nodeName(sn),
		CapacityType: capacityType, Zone: zone, Took: took, Lived: lived, InstanceTook: instanceTook,
		NodePool: sn.NodePool(), Message: fmt.Sprintf("deleted nodeclaim %s (instance %s terminated)", nc.Name, nc.Status.ProviderID)})
	return nil
}

// awaitVolumes holds the instance's termination while persistent volumes of the drained pods are
// still attached to the node (their pods could not attach them elsewhere), until the termination
// grace period ends, as Karpenter does, and records it in the NodeClaim's VolumesDetached
// condition. It reports whether termination must wait.
func (c *Controller) awaitVolumes(ctx context.Context, sn *state.Node, deadline, now time.Time) (bool, error) {
	nc := sn.NodeClaim
	// Decided once: after that, the instance is going and its pods with it.
	if cond := meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeVolumesDetached); cond != nil && cond.Status != metav1.ConditionUnknown {
		return false, nil
	}
	if why := cmp.Or(c.cluster.Unwatched(state.KindVolumeAttachment), c.cluster.Unwatched(state.KindPVC)); why != "" {
		if !c.volumesUnknown {
			c.volumesUnknown = true
			c.journal.Record(journal.Entry{Time: now, Kind: journal.KindTermination, Reason: journal.ReasonVolumesUnknown,
				Message: "instances are terminated without waiting for their volumes to detach: " + why +
					" (grant list and watch on volumeattachments and persistentvolumeclaims)"})
		}
		return false, nil
	}
	var staying []*corev1.Pod
	for _, p := range sn.Pods {
		if !pods.IsEvictable(p) {
			staying = append(staying, p)
		}
	}
	attached := c.cluster.AttachedVolumes(sn.Node.Name, staying)
	switch {
	case len(attached) == 0:
		return false, c.setCondition(ctx, nc, karpv1.ConditionTypeVolumesDetached, metav1.ConditionTrue, "VolumesDetached", now)
	case deadline.IsZero() || now.Before(deadline):
		msg := fmt.Sprintf("Awaiting deletion of bound volumeattachments (%s)", strings.Join(firstN(attached, 5), ", "))
		c.journal.Block(sn.Node.Name, journal.Entry{Time: now, Reason: journal.ReasonAwaitingVolumeDetachment, NodeClaims: []string{nc.Name}, NodePool: sn.NodePool(),
			Message: "terminating node " + sn.Node.Name + ": " + msg, Until: deadline,
			Events: []journal.Event{{Object: sn.Node, Type: corev1.EventTypeNormal, Reason: journal.ReasonAwaitingVolumeDetachment, Message: msg}}})
		return true, c.setCondition(ctx, nc, karpv1.ConditionTypeVolumesDetached, metav1.ConditionUnknown, "AwaitingVolumeDetachment", now)
	}
	return false, c.setCondition(ctx, nc, karpv1.ConditionTypeVolumesDetached, metav1.ConditionFalse, "TerminationGracePeriodElapsed", now)
}

// setCondition sets a condition of the NodeClaim's status unless it already says so.
func (c *Controller) setCondition(ctx context.Context, nc *karpv1.NodeClaim, t string, status metav1.ConditionStatus, reason string, now time.Time) error {
	if cond := meta.FindStatusCondition(nc.Status.Conditions, t); cond != nil && cond.Status == status && cond.Reason == reason {
		return nil
	}
	_, err := c.exec.UpdateNodeClaimStatus(ctx, nc.Name, fmt.Sprintf("set %s=%s (%s)", t, status, reason), func(o *karpv1.NodeClaim) error {
		meta.SetStatusCondition(&o.Status.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason, LastTransitionTime: metav1.NewTime(now)})
		return nil
	})
	return err
}

// taint keeps new pods off the node while it drains.
func (c *Controller) taint(ctx context.Context, sn *state.Node) error {
	disrupted := karpv1.DisruptedNoScheduleTaint()
	if slices.ContainsFunc(sn.Node.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&disrupted) }) {
		return nil
	}
	added := false
	_, err := c.exec.UpdateNode(ctx, sn.Node.Name, "taint "+disrupted.ToString(), func(n *corev1.Node) error {
		added = !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&disrupted) })
		if added {
			n.Spec.Taints = append(n.Spec.Taints, disrupted)
		}
		return nil
	})
	if err == nil && added {
		e := journal.Entry{Time: c.clock.Now(), Kind: journal.KindTermination, Reason: journal.ReasonTainted, Nodes: []string{sn.Node.Name},
			NodeClaims: []string{sn.NodeClaim.Name}, NodePool: sn.NodePool(), Message: "tainted node " + sn.Node.Name}
		// As Karpenter, warn on both when terminationGracePeriod bounds the drain.
		if deadline := Deadline(sn.NodeClaim); !deadline.IsZero() {
			msg := "All pods will be deleted by " + deadline.UTC().Format(time.RFC3339)
			e.Message += "; " + msg
			for _, obj := range []runtime.Object{sn.Node, sn.NodeClaim} {
				e.Events = append(e.Events, journal.Event{Object: obj, Type: corev1.EventTypeWarning, Reason: journal.ReasonTerminationGracePeriodExpiring, Message: msg})
			}
		}
		c.journal.Record(e)
	}
	return err
}

// releaseNode deletes the Node and removes the finalizer that kept it.
func (c *Controller) releaseNode(ctx context.Context, name string) error {
	if err := c.exec.DeleteNode(ctx, name); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	_, err := c.exec.UpdateNode(ctx, name, "remove finalizer "+karpv1.TerminationFinalizer, func(n *corev1.Node) error {
		n.Finalizers = slices.DeleteFunc(n.Finalizers, func(f string) bool { return f == karpv1.TerminationFinalizer })
		return nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// Deadline is when a NodeClaim's drain must end (its deletion plus terminationGracePeriod), or
// zero when it may take as long as budgets require.
func Deadline(nc *karpv1.NodeClaim) time.Time {
	if nc.DeletionTimestamp == nil || nc.Spec.TerminationGracePeriod == nil {
		return time.Time{}
	}
	return nc.DeletionTimestamp.Add(nc.Spec.TerminationGracePeriod.Duration)
}

func nodeName(sn *state.Node) []string {
	if sn.Node == nil {
		return nil
	}
	return []string{sn.Node.Name}
}
