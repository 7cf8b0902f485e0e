package aws

import (
	"context"
	"fmt"
	"slices"
	"time"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// Drift reasons of the AWS provider, as Karpenter names them.
const (
	// DriftNodeClass: the EC2NodeClass's spec changed since launch (its hash differs).
	DriftNodeClass cloudprovider.DriftReason = "NodeClassDrift"
	// DriftAMI: the instance's image is no longer one the node class selects.
	DriftAMI cloudprovider.DriftReason = "AMIDrift"
	// DriftSubnet: the instance's subnet is no longer one the node class selects.
	DriftSubnet cloudprovider.DriftReason = "SubnetDrift"
	// DriftSecurityGroup: the instance's security groups differ from those the node class
	// selects.
	DriftSecurityGroup cloudprovider.DriftReason = "SecurityGroupDrift"
)

// NodeClassHash is the karpenter.k8s.aws/ec2nodeclass-hash of nc in this cluster (the hash
// covers the cluster's CA bundle, as Karpenter's does).
func (p *Provider) NodeClassHash(nc *awsv1.EC2NodeClass) string {
	return awsv1.Hash(nc, p.opts.ClusterCABundle)
}

// IsDrifted says why a NodeClaim's instance no longer matches its EC2NodeClass, or "": the
// node class's hash differs from the karpenter.k8s.aws/ec2nodeclass-hash annotation (of the same
// hash version), or the instance's AMI, subnet or security groups are no longer selected. The
// instance comes from the cluster's instance list, taken at most DriftListTTL ago, so that checking
// every NodeClaim costs one paginated DescribeInstances per period rather than one call each; the
// selectors come from their caches when fresh.
func (p *Provider) IsDrifted(ctx context.Context, nodeClaim *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	nc, err := p.nodeClassOf(ctx, nodeClaim.Spec.NodeClassRef)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	if h, ok := nodeClaim.Annotations[awsv1.AnnotationEC2NodeClassHash]; ok &&
		nodeClaim.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] == awsv1.EC2NodeClassHashVersion && h != p.NodeClassHash(nc) {
		return DriftNodeClass, nil
	}
	id, err := instanceID(nodeClaim.Status.ProviderID)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	inst, found, err := p.driftInstance(ctx, id)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	if !found {
		return "", &cloudprovider.NodeClaimNotFoundError{ProviderID: nodeClaim.Status.ProviderID}
	}
	amis, err := p.amis(ctx, nc)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	if !slices.ContainsFunc(amis, func(a ami) bool { return a.ID == inst.imageID }) {
		return DriftAMI, nil
	}
	subnets, err := p.subnets(ctx, nc)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	if !slices.ContainsFunc(subnets, func(s subnet) bool { return s.ID == inst.subnetID }) {
		return DriftSubnet, nil
	}
	groups, err := p.securityGroups(ctx, nc)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	have := slices.Sorted(slices.Values(inst.securityGroups))
	if !slices.Equal(slices.Compact(have), securityGroupIDs(groups)) {
		return DriftSecurityGroup, nil
	}
	return "", nil
}

// DriftListTTL is how long the cluster's instance list serves drift checks. What they compare
// (image, subnet, security groups) does not change during an instance's life.
const DriftListTTL = time.Minute

// driftInstance finds a live instance by id in the cluster's instance list, listing the cluster
// again when the list is older than DriftListTTL. An instance launched since the list was taken
// is described on its own.
func (p *Provider) driftInstance(ctx context.Context, id string) (instance, bool, error) {
	live := func(in instance) bool { return in.id == id && !in.gone() }
	instances, ok := p.driftList.get("")
	if !ok {
		var err error
		if instances, err = p.clusterInstances(ctx); err != nil {
			return instance{}, false, err
		}
		p.driftList.set("", instances)
	}
	if i := slices.IndexFunc(instances, live); i >= 0 {
		return instances[i], true, nil
	}
	one, err := p.describe(ctx, filter("instance-id", id))
	if err != nil {
		return instance{}, false, err
	}
	if i := slices.IndexFunc(one, live); i >= 0 {
		return one[i], true, nil
	}
	return instance{}, false, nil
}
