package lifecycle

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// gcGrace is how long a machine may exist without its NodeClaim, or a NodeClaim without its
// machine, before garbage collection acts: long enough for a launch to be recorded.
const gcGrace = 30 * time.Second

// GarbageCollect reconciles the cloud with the NodeClaims both ways: a launched NodeClaim whose
// machine is gone is deleted (its pods are planned again), and a machine this cluster launched
// that no NodeClaim claims is terminated. Every action is journaled with its reason.
func (c *Controller) GarbageCollect(ctx context.Context) error {
	ctx = cloudprovider.WithController(ctx, "nodeclaim.garbagecollection")
	snap := c.cluster.Snapshot()
	if !snap.Synced {
		return nil
	}
	machines, err := c.cloud.List(ctx)
	if err != nil {
		return fmt.Errorf("listing machines: %w", err)
	}
	now := c.clock.Now()
	byProvider := map[string]*karpv1.NodeClaim{}
	claims := map[string]*karpv1.NodeClaim{}
	for _, nc := range snap.NodeClaims {
		claims[nc.Name] = nc
	}
	for _, m := range machines {
		byProvider[m.Status.ProviderID] = m
		if _, ok := claims[m.Name]; ok || now.Sub(m.CreationTimestamp.Time) < gcGrace {
			continue
		}
		err := c.exec.Terminate(ctx, m, "(garbage: no nodeclaim claims it)")
		if executor.NotPerformed(err) {
			continue
		}
		if err != nil && !cloudprovider.IsNodeClaimNotFound(err) {
			return fmt.Errorf("terminating orphan %s: %w", m.Status.ProviderID, err)
		}
		c.journal.Record(journal.Entry{Time: now, Kind: journal.KindGarbageCollection, Reason: journal.ReasonOrphanInstance, NodeClaims: []string{m.Name},
			Message: fmt.Sprintf("terminated instance %s: no nodeclaim %q claims it", m.Status.ProviderID, m.Name)})
	}
	for _, nc := range snap.NodeClaims {
		launched := meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeLaunched)
		if nc.DeletionTimestamp != nil || nc.Status.ProviderID == "" || launched == nil || launched.Status != "True" ||
			now.Sub(launched.LastTransitionTime.Time) < gcGrace || byProvider[nc.Status.ProviderID] != nil {
			continue
		}
		err := c.deleteThen(ctx, nc, "(its instance is gone)", journal.Entry{Time: now, Kind: journal.KindGarbageCollection, Reason: journal.ReasonInstanceGone,
			NodeClaims: []string{nc.Name}, Message: fmt.Sprintf("deleting nodeclaim %s: its instance %s no longer exists", nc.Name, nc.Status.ProviderID)})
		if err != nil && !executor.NotPerformed(err) {
			return err
		}
	}
	return nil
}
