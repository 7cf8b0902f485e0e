package lifecycle

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// SetNodePoolStatus sets what Karpenter's NodePool controllers write into np's status: its usage
// (nodes, in-flight ones too, and the sum of their capacity, from Snapshot.PoolUsage) and its
// conditions: ValidationSucceeded (the checks CRD validation cannot make), NodeClassReady (its
// EC2NodeClass exists and is Ready) and Ready (both). kubectl get nodepools shows them.
func SetNodePoolStatus(snap *state.Snapshot, usage state.PoolUsage, np *karpv1.NodePool) {
	nodes := usage.Nodes
	np.Status.Nodes, np.Status.Resources = &nodes, usage.Capacity
	if np.Status.Resources == nil {
		np.Status.Resources = corev1.ResourceList{}
	}

	validation := condition(karpv1.ConditionTypeValidationSucceeded, nil, "")
	if errs := np.Validate(); len(errs) > 0 {
		validation = condition(karpv1.ConditionTypeValidationSucceeded, errs.ToAggregate(), "ValidationFailed")
	}
	nodeClass := condition(karpv1.ConditionTypeNodeClassReady, nodeClassProblem(snap, np), "NodeClassNotReady")
	ready := condition(karpv1.ConditionTypeReady, nil, "")
	for _, c := range []metav1.Condition{validation, nodeClass} {
		if c.Status != metav1.ConditionTrue && ready.Status == metav1.ConditionTrue {
			ready = metav1.Condition{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionFalse, Reason: c.Reason, Message: c.Message}
		}
	}
	for _, c := range []metav1.Condition{validation, nodeClass, ready} {
		c.ObservedGeneration = np.Generation
		meta.SetStatusCondition(&np.Status.Conditions, c)
	}
}

// nodeClassProblem says why np's node class is not ready, or nil.
func nodeClassProblem(snap *state.Snapshot, np *karpv1.NodePool) error {
	ref := np.Spec.Template.Spec.NodeClassRef
	nc := snap.NodeClass(ref.Name)
	if nc == nil {
		return errors.New(ref.Kind + " " + ref.Name + " not found")
	}
	if c := meta.FindStatusCondition(nc.StatusConditions(), state.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		msg := ref.Kind + " " + ref.Name + " is not ready"
		if c != nil && c.Message != "" {
			msg += ": " + c.Message
		}
		return errors.New(msg)
	}
	return nil
}

// condition is a True condition of type t when err is nil, else a False one with reason and
// err's message.
func condition(t string, err error, reason string) metav1.Condition {
	if err == nil {
		return metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t}
	}
	return metav1.Condition{Type: t, Status: metav1.ConditionFalse, Reason: reason, Message: err.Error()}
}

// setHashAnnotations writes a NodePool's hash and hash version on it, as Karpenter's hash
// controller does, for the tools (and the Karpenter) that read them there.
func setHashAnnotations(np *karpv1.NodePool) error {
	metav1.SetMetaDataAnnotation(&np.ObjectMeta, karpv1.NodePoolHashAnnotationKey, karpv1.Hash(np))
	metav1.SetMetaDataAnnotation(&np.ObjectMeta, karpv1.NodePoolHashVersionAnnotationKey, karpv1.NodePoolHashVersion)
	return nil
}

// reconcileNodePools writes each NodePool's hash annotations and status when they changed.
func (c *Controller) reconcileNodePools(ctx context.Context, snap *state.Snapshot) error {
	var errs []error
	usage := snap.PoolUsage()
	for _, np := range snap.NodePools {
		if np.DeletionTimestamp != nil {
			continue
		}
		if np.Annotations[karpv1.NodePoolHashAnnotationKey] != karpv1.Hash(np) || np.Annotations[karpv1.NodePoolHashVersionAnnotationKey] != karpv1.NodePoolHashVersion {
			errs = append(errs, c.exec.UpdateNodePool(ctx, np.Name, "annotate hash", setHashAnnotations))
		}
		want := np.DeepCopy()
		SetNodePoolStatus(snap, usage[np.Name], want)
		if equality.Semantic.DeepEqual(np.Status, want.Status) { // quantities by amount, not spelling
			continue
		}
		errs = append(errs, c.exec.UpdateNodePoolStatus(ctx, np.Name, func(live *karpv1.NodePool) error {
			SetNodePoolStatus(snap, usage[np.Name], live)
			return nil
		}))
	}
	return errors.Join(errs...)
}
