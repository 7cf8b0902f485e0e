package lifecycle

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Drift reasons the engine finds itself (the cloud adds its own).
const (
	DriftNodePool     = "NodePoolDrifted"
	DriftRequirements = "RequirementsDrifted"
)

// driftCheckPeriod spaces out asking the cloud whether a machine drifted.
const driftCheckPeriod = time.Minute

// observe keeps up to date what disruption reads on an initialized NodeClaim: whether it
// drifted, whether it is consolidatable, and when a pod last came or went.
func (c *Controller) observe(ctx context.Context, snap *state.Snapshot, sn *state.Node) error {
	nc, now := sn.NodeClaim, c.clock.Now()
	np := snap.NodePool(sn.NodePool())
	if np == nil {
		return nil
	}
	if err := c.rehash(ctx, np, nc); err != nil {
		return err
	}
	drift := c.driftReason(ctx, np, nc, now)
	lastPodEvent := LastPodEvent(sn)
	consolidatable, _ := Consolidatable(np, nc, lastPodEvent, now)
	wasDrifted := meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeDrifted)
	stale := nc.Status.LastPodEventTime.Time.Before(lastPodEvent.Add(-5 * time.Second))
	if (drift != "") == (wasDrifted != nil && wasDrifted.Status == metav1.ConditionTrue) &&
		consolidatable == conditionTrue(nc, karpv1.ConditionTypeConsolidatable) && !stale {
		return nil
	}
	_, err := c.exec.UpdateNodeClaimStatus(ctx, nc.Name, "update Drifted, Consolidatable and lastPodEventTime", func(o *karpv1.NodeClaim) error {
		if drift != "" {
			setCondition(o, karpv1.ConditionTypeDrifted, metav1.ConditionTrue, drift, "", now)
		} else {
			meta.RemoveStatusCondition(&o.Status.Conditions, karpv1.ConditionTypeDrifted)
		}
		if consolidatable {
			setCondition(o, karpv1.ConditionTypeConsolidatable, metav1.ConditionTrue, "Consolidatable", "", now)
		} else {
			meta.RemoveStatusCondition(&o.Status.Conditions, karpv1.ConditionTypeConsolidatable)
		}
		if lastPodEvent.After(o.Status.LastPodEventTime.Time) {
			o.Status.LastPodEventTime = metav1.NewTime(lastPodEvent)
		}
		return nil
	})
	if err == nil && drift != "" && (wasDrifted == nil || wasDrifted.Status != metav1.ConditionTrue) {
		c.journal.Record(journalDrift(sn, drift, now))
	}
	return err
}

// rehash gives a NodeClaim hashed under another scheme (an older nodepilot's, or none) the
// NodePool's current hash and scheme (karpv1.Rehash).
func (c *Controller) rehash(ctx context.Context, np *karpv1.NodePool, nc *karpv1.NodeClaim) error {
	if nc.Annotations[karpv1.NodePoolHashVersionAnnotationKey] == karpv1.NodePoolHashVersion {
		return nil
	}
	_, err := c.exec.UpdateNodeClaim(ctx, nc.Name, "re-hash under nodepool-hash-version "+karpv1.NodePoolHashVersion, func(o *karpv1.NodeClaim) error {
		karpv1.Rehash(o, karpv1.NodePoolHashAnnotationKey, karpv1.Hash(np), karpv1.NodePoolHashVersionAnnotationKey, karpv1.NodePoolHashVersion)
		return nil
	})
	return err
}

// driftReason says why a NodeClaim no longer matches its NodePool or node class, or "".
func (c *Controller) driftReason(ctx context.Context, np *karpv1.NodePool, nc *karpv1.NodeClaim, now time.Time) string {
	if nc.Annotations[karpv1.NodePoolHashVersionAnnotationKey] == karpv1.NodePoolHashVersion &&
		nc.Annotations[karpv1.NodePoolHashAnnotationKey] != karpv1.Hash(np) {
		return DriftNodePool
	}
	if RequirementsDrifted(np, nc) {
		return DriftRequirements
	}
	if last, ok := c.driftChecked[nc.Name]; ok && now.Sub(last.at) < driftCheckPeriod {
		return last.reason
	}
	// Karpenter checks drift in its NodeClaim disruption controller.
	reason, err := c.cloud.IsDrifted(cloudprovider.WithController(ctx, "nodeclaim.disruption"), nc)
	if err != nil {
		return "" // unknown is not drifted; asked again next period
	}
	c.driftChecked[nc.Name] = driftCheck{at: now, reason: string(reason)}
	return string(reason)
}

// RequirementsDrifted reports whether a NodeClaim's labels no longer meet its NodePool's
// requirements, as Karpenter's drift check decides it: every label a requirement names must be on
// the NodeClaim, unless the requirement asks it absent (NotIn, DoesNotExist), and allow the
// NodeClaim's value. So a NodeClaim without a custom label its NodePool now requires has drifted;
// NodeClaims are created with one (claim labels, in scheduling).
func RequirementsDrifted(np *karpv1.NodePool, nc *karpv1.NodeClaim) bool {
	var rs []*requirements.Requirement
	for _, r := range np.Spec.Template.Spec.Requirements {
		rs = append(rs, requirements.New(r.Key, r.Operator, r.Values...))
	}
	return requirements.FromLabels(nc.Labels).Compatible(requirements.Of(rs...), requirements.NoneImplied) != nil
}

// LastPodEvent is when a pod last came to or left the node: what the state saw, what the
// NodeClaim's status kept across restarts, or its initialization.
func LastPodEvent(sn *state.Node) time.Time {
	t := sn.NodeClaim.Status.LastPodEventTime.Time
	if sn.LastPodEvent.After(t) {
		t = sn.LastPodEvent
	}
	if init := conditionTime(sn.NodeClaim, karpv1.ConditionTypeInitialized); init.After(t) {
		t = init
	}
	return t
}

// Consolidatable reports whether consolidateAfter has passed since the last pod event, and when
// it will (zero when never: consolidateAfter Never, a static NodePool, a NodeClaim not initialized).
func Consolidatable(np *karpv1.NodePool, nc *karpv1.NodeClaim, lastPodEvent, now time.Time) (bool, time.Time) {
	after := np.Spec.Disruption.ConsolidateAfter
	if after.Never || np.IsStatic() || !conditionTrue(nc, karpv1.ConditionTypeInitialized) {
		return false, time.Time{}
	}
	d := time.Duration(0)
	if after.Duration != nil {
		d = *after.Duration
	}
	at := lastPodEvent.Add(d)
	return !now.Before(at), at
}

type driftCheck struct {
	at     time.Time
	reason string
}

func journalDrift(sn *state.Node, reason string, now time.Time) journal.Entry {
	nc := sn.NodeClaim
	return journal.Entry{Time: now, Kind: journal.KindDisruption, Reason: journal.ReasonDrifted, NodeClaims: []string{nc.Name}, Nodes: nodeNames(sn),
		NodePool: sn.NodePool(), Message: fmt.Sprintf("nodeclaim %s drifted: %s", nc.Name, reason),
		Events: []journal.Event{{Object: nc, Type: corev1.EventTypeNormal, Reason: journal.ReasonDrifted, Message: "NodeClaim drifted: " + reason}}}
}
