package static

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Journal reasons of the static controller.
const (
	// ReasonScaledUp and ReasonScaledDown record NodeClaims created and deleted for replicas.
	ReasonScaledUp   journal.Reason = "StaticScaledUp"
	ReasonScaledDown journal.Reason = "StaticScaledDown"
	// ReasonHeld records why a static NodePool stays below its replicas.
	ReasonHeld journal.Reason = "StaticHeld"
)

// Controller keeps static NodePools at their replicas. Every write goes through the executor.
type Controller struct {
	cluster   *state.Cluster
	exec      *executor.Executor
	cloud     cloudprovider.CloudProvider
	journal   *journal.Journal
	clock     clock.Clock
	wellKnown []string
	// held is the last hold journaled per NodePool, so that a hold is journaled once per change.
	held map[string]string
}

// New returns a controller that writes through exec; wellKnown are the labels the cloud puts on
// every node (see scheduling.Input).
func New(cluster *state.Cluster, exec *executor.Executor, cloud cloudprovider.CloudProvider, j *journal.Journal, c clock.Clock, wellKnown []string) *Controller {
	return &Controller{cluster: cluster, exec: exec, cloud: cloud, journal: j, clock: c, wellKnown: wellKnown, held: map[string]string{}}
}

// Reconcile brings every static NodePool toward its replicas. It does nothing until every
// informer has synced: counting a partial view would create NodeClaims that exist.
func (c *Controller) Reconcile(ctx context.Context) error {
	ctx = cloudprovider.WithController(ctx, "static.provisioning")
	// The loop runs on every cluster change: without a static NodePool, skip the snapshot.
	if !c.cluster.AnyNodePool((*karpv1.NodePool).IsStatic) {
		c.held = map[string]string{}
		return nil
	}
	snap := c.cluster.Snapshot()
	if !snap.Synced {
		return nil
	}
	held := map[string]string{}
	defer c.recordHolds(held)
	var cat *provisioning.Catalog
	for _, d := range Decide(snap, c.clock.Now()) {
		if d.Held != "" {
			held[d.NodePool.Name] = d.Held
		}
		if d.Create > 0 && cat == nil {
			cat = provisioning.LoadCatalog(ctx, c.cloud, snap)
		}
		why, err := c.scaleUp(ctx, snap, cat, d)
		if err != nil {
			return err
		}
		if why != "" {
			held[d.NodePool.Name] = why
			continue
		}
		if err := c.scaleDown(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// scaleUp creates the NodeClaims the decision asks for, or says why it cannot.
func (c *Controller) scaleUp(ctx context.Context, snap *state.Snapshot, cat *provisioning.Catalog, d Decision) (string, error) {
	if d.Create == 0 {
		return "", nil
	}
	np := d.NodePool
	pt := cat.Pools[np.Name]
	if pt == nil {
		for _, r := range cat.Unlaunchable {
			if r.NodePool == np.Name {
				return r.Message, nil
			}
		}
		return fmt.Sprintf("NodePool %q has no instance types", np.Name), nil
	}
	nc := scheduling.StaticNodeClaim(np, pt.Types, snap.DaemonSets, c.wellKnown)
	if nc == nil {
		return fmt.Sprintf("NodePool %q has no instance type with an available offering that holds its DaemonSets", np.Name), nil
	}
	for range d.Create {
		created, err := provisioning.CreateNodeClaim(ctx, c.exec, c.cluster, np, nc, fmt.Sprintf("for static nodepool %s (%d of %d replicas running): %s %s at $%.4f/h expected",
			np.Name, len(d.Claims.Running), *np.Spec.Replicas, nc.Offering.CapacityType, nc.InstanceType.Name, nc.PricePerHour()))
		if executor.NotPerformed(err) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("creating a nodeclaim for static nodepool %q: %w", np.Name, err)
		}
		c.journal.Record(journal.Entry{Time: c.clock.Now(), Kind: journal.KindProvisioning, Reason: journal.ReasonNodeClaimCreated, NodePool: np.Name,
			NodeClaims: []string{created.Name}, PriceAfter: nc.PricePerHour(),
			Message: fmt.Sprintf("created nodeclaim %s for static nodepool %s (replicas %d): most likely %s %s in %s at $%.4f/h",
				created.Name, np.Name, *np.Spec.Replicas, nc.Offering.CapacityType, nc.InstanceType.Name, nc.Offering.Zone, nc.PricePerHour())})
	}
	c.journal.Record(journal.Entry{Time: c.clock.Now(), Kind: journal.KindProvisioning, Reason: ReasonScaledUp, NodePool: np.Name,
		Message: fmt.Sprintf("provisioning nodeclaims to satisfy replica count: static nodepool %s had %d running, wants %d, created %d",
			np.Name, len(d.Claims.Running), *np.Spec.Replicas, d.Create)})
	return "", nil
}

func (c *Controller) scaleDown(ctx context.Context, d Decision) error {
	np := d.NodePool
	for _, name := range d.Delete {
		err := c.exec.DeleteNodeClaim(ctx, name, fmt.Sprintf("to scale static nodepool %s down to %d replicas", np.Name, *np.Spec.Replicas))
		if executor.NotPerformed(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("deleting nodeclaim %q of static nodepool %q: %w", name, np.Name, err)
		}
		c.cluster.MarkForDeletion(name)
	}
	if len(d.Delete) > 0 {
		c.journal.Record(journal.Entry{Time: c.clock.Now(), Kind: journal.KindProvisioning, Reason: ReasonScaledDown, NodePool: np.Name, NodeClaims: d.Delete,
			Message: fmt.Sprintf("deprovisioning nodeclaims to satisfy replica count: static nodepool %s had %d running, wants %d, deleting %v",
				np.Name, len(d.Claims.Running), *np.Spec.Replicas, d.Delete)})
	}
	return nil
}

// recordHolds journals each NodePool's hold when it changes, and forgets the holds that ended.
func (c *Controller) recordHolds(held map[string]string) {
	for _, pool := range slices.Sorted(maps.Keys(held)) {
		if why := held[pool]; c.held[pool] != why {
			c.journal.Record(journal.Entry{Time: c.clock.Now(), Kind: journal.KindProvisioning, Reason: ReasonHeld, NodePool: pool, Message: why})
		}
	}
	c.held = held
}
