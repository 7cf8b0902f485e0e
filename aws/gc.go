package aws

import (
	"context"
	"errors"
	"fmt"
	"time"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// GCRecord is one instance garbage collection terminated, and why. The engine journals it.
type GCRecord struct {
	InstanceID   string
	ProviderID   string
	InstanceType string
	Zone         string
	// NodeClaim and NodePool are the instance's karpenter.sh tags.
	NodeClaim  string
	NodePool   string
	LaunchTime time.Time
	// Reason says why the instance was taken for a leak.
	Reason string
	// Err is set when terminating it failed; it is tried again next time.
	Err error
}

// CollectGarbage terminates the instances of this cluster that no NodeClaim claims, once they
// are older than GCGracePeriod, and returns a record for each. An instance is claimed by the
// NodeClaim whose status holds its provider ID, or by the NodeClaim its karpenter.sh/nodeclaim
// tag names while that NodeClaim has no provider ID yet (its launch is in flight, or is being
// retried after a crash). nodeClaims must be every NodeClaim of the cluster.
func (p *Provider) CollectGarbage(ctx context.Context, nodeClaims []*karpv1.NodeClaim) ([]GCRecord, error) {
	instances, err := p.clusterInstances(ctx)
	if err != nil {
		return nil, fmt.Errorf("garbage collection: %w", err)
	}
	claimedIDs := map[string]bool{}
	launching := map[string]bool{}
	for _, nc := range nodeClaims {
		if nc.Status.ProviderID == "" {
			launching[nc.Name] = true
			continue
		}
		if id, err := instanceID(nc.Status.ProviderID); err == nil {
			claimedIDs[id] = true
		}
	}
	now := p.clock.Now()
	var records []GCRecord
	var ids []string
	for _, inst := range instances {
		name := inst.tags[awsv1.TagKeyNodeClaim]
		age := now.Sub(inst.launchTime)
		if claimedIDs[inst.id] || launching[name] || age < p.opts.GCGracePeriod {
			continue
		}
		reason := fmt.Sprintf("no NodeClaim claims it: its NodeClaim %q does not exist", name)
		if nodeClaimExists(nodeClaims, name) {
			reason = fmt.Sprintf("no NodeClaim claims it: its NodeClaim %q holds another instance", name)
		}
		records = append(records, GCRecord{
			InstanceID:   inst.id,
			ProviderID:   providerID(inst.zone, inst.id),
			InstanceType: inst.instanceType,
			Zone:         inst.zone,
			NodeClaim:    name,
			NodePool:     inst.tags[awsv1.TagKeyNodePool],
			LaunchTime:   inst.launchTime,
			Reason:       fmt.Sprintf("%s; launched %s ago, past the %s grace period", reason, age.Round(time.Second), p.opts.GCGracePeriod),
		})
		ids = append(ids, inst.id)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	_, err = terminateInstances(ctx, p.clients.EC2, ids)
	if err != nil {
		for i := range records {
			records[i].Err = err
		}
		return records, fmt.Errorf("garbage collection: %w", errors.Unwrap(err))
	}
	return records, nil
}

func nodeClaimExists(nodeClaims []*karpv1.NodeClaim, name string) bool {
	for _, nc := range nodeClaims {
		if nc.Name == name {
			return true
		}
	}
	return false
}
