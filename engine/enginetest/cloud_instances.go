package enginetest

import (
	"context"
	"time"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Delete terminates the NodeClaim's instance, found by its provider ID or, when the NodeClaim
// never recorded one, by the NodeClaim it was launched for. It returns nil when it terminated
// a running instance and a *cloudprovider.NodeClaimNotFoundError when the instance is gone
// already or never existed.
func (c *Cloud) Delete(ctx context.Context, nc *karpv1.NodeClaim) error {
	defer c.end("Delete")
	if err := c.begin(ctx, "Delete"); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	inst := c.instanceOf(nc)
	if inst == nil || !inst.Running() {
		return &cloudprovider.NodeClaimNotFoundError{ProviderID: nc.Status.ProviderID}
	}
	c.terminate(inst, c.clock.Now())
	return nil
}

// Terminate terminates an instance from outside the cluster (a user in the console, a
// reclaimed spot instance), without telling anyone; it reports whether the instance was running.
func (c *Cloud) Terminate(providerID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	inst := c.byProviderID(providerID)
	if inst == nil || !inst.Running() {
		return false
	}
	c.terminate(inst, c.clock.Now())
	return true
}

// terminate ends an instance; the caller holds the lock.
func (c *Cloud) terminate(inst *Instance, now time.Time) {
	c.version++
	inst.State = InstanceTerminated
	inst.TerminatedAt = now
	inst.ReclaimAt = time.Time{}
}

// Get returns the running instance with this provider ID as a NodeClaim (name, labels, launch
// time and status), or a *cloudprovider.NodeClaimNotFoundError.
func (c *Cloud) Get(ctx context.Context, providerID string) (*karpv1.NodeClaim, error) {
	defer c.end("Get")
	if err := c.begin(ctx, "Get"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	inst := c.byProviderID(providerID)
	if inst == nil || !inst.Running() {
		return nil, &cloudprovider.NodeClaimNotFoundError{ProviderID: providerID}
	}
	return asNodeClaim(inst), nil
}

// List returns every running instance as a NodeClaim named after the NodeClaim it was
// launched for, in launch order.
func (c *Cloud) List(ctx context.Context) ([]*karpv1.NodeClaim, error) {
	defer c.end("List")
	if err := c.begin(ctx, "List"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*karpv1.NodeClaim
	for _, inst := range c.instances {
		if inst.Running() {
			out = append(out, asNodeClaim(inst))
		}
	}
	return out, nil
}

// Step does what the cloud does on its own as time passes: spot instances whose interruption
// deadline has come are terminated, and a StateChange interruption says so. It reports whether
// anything changed.
func (c *Cloud) Step(_ context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	changed := false
	for _, inst := range c.instances {
		if !inst.Running() || inst.ReclaimAt.IsZero() || now.Before(inst.ReclaimAt) {
			continue
		}
		c.terminate(inst, now)
		c.enqueue(cloudprovider.Interruption{Kind: cloudprovider.StateChange, InstanceID: inst.ID, ProviderID: inst.ProviderID,
			Detail: "terminated", At: now, Drain: true})
		changed = true
	}
	return changed
}
