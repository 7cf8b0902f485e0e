package aws

import (
	"context"
	"fmt"
	"slices"

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

// IsDrifted says why a NodeClaim's instance no longer matches its EC2NodeClass, or "": the
// node class's hash differs from the karpenter.k8s.aws/ec2nodeclass-hash annotation (of the same
// hash version), or the instance's AMI, subnet or security groups are no longer selected. It
// costs one DescribeInstances; the selectors come from the caches when fresh.
func (p *Provider) IsDrifted(ctx context.Context, nodeClaim *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	nc, err := p.nodeClassOf(ctx, nodeClaim.Spec.NodeClassRef)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	if h, ok := nodeClaim.Annotations[awsv1.AnnotationEC2NodeClassHash]; ok &&
		nodeClaim.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] == awsv1.EC2NodeClassHashVersion && h != awsv1.Hash(nc) {
		return DriftNodeClass, nil
	}
	id, err := instanceID(nodeClaim.Status.ProviderID)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	instances, err := p.describe(ctx, filter("instance-id", id))
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %q: %w", nodeClaim.Name, err)
	}
	i := slices.IndexFunc(instances, func(in instance) bool { return in.id == id && !in.gone() })
	if i < 0 {
		return "", &cloudprovider.NodeClaimNotFoundError{ProviderID: nodeClaim.Status.ProviderID}
	}
	inst := instances[i]
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
