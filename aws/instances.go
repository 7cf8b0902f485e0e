package aws

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/journal"
)

// liveStates are the instance states Get and List report; terminated instances are gone.
func liveStates() []string {
	return []string{"pending", "running", "stopping", "stopped", "shutting-down"}
}

// instance is what the provider needs of an EC2 instance.
type instance struct {
	id, instanceType, zone, subnetID, capacityType, imageID, state string
	securityGroups                                                 []string
	tags                                                           map[string]string
	launchTime                                                     time.Time
}

// gone reports whether the instance is terminated.
func (i instance) gone() bool { return i.state == string(ec2types.InstanceStateNameTerminated) }

// describe lists the instances matching filters (DescribeInstances, paginated). Filtering by
// instance-id, unlike passing ids, is not an error for ids EC2 does not know.
func (p *Provider) describe(ctx context.Context, filters ...ec2types.Filter) ([]instance, error) {
	var out []instance
	pages := ec2.NewDescribeInstancesPaginator(p.clients.EC2, &ec2.DescribeInstancesInput{Filters: filters})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ec2 DescribeInstances: %w", err)
		}
		for _, res := range page.Reservations {
			for i := range res.Instances {
				out = append(out, instanceFromEC2(&res.Instances[i]))
			}
		}
	}
	return out, nil
}

func instanceFromEC2(in *ec2types.Instance) instance {
	out := instance{
		id:           sdkaws.ToString(in.InstanceId),
		instanceType: string(in.InstanceType),
		subnetID:     sdkaws.ToString(in.SubnetId),
		imageID:      sdkaws.ToString(in.ImageId),
		capacityType: karpv1.CapacityTypeOnDemand,
		tags:         tagMap(in.Tags),
		launchTime:   sdkaws.ToTime(in.LaunchTime),
	}
	if in.InstanceLifecycle == ec2types.InstanceLifecycleTypeSpot {
		out.capacityType = karpv1.CapacityTypeSpot
	}
	if in.Placement != nil {
		out.zone = sdkaws.ToString(in.Placement.AvailabilityZone)
	}
	if in.State != nil {
		out.state = string(in.State.Name)
	}
	for _, g := range in.SecurityGroups {
		out.securityGroups = append(out.securityGroups, sdkaws.ToString(g.GroupId))
	}
	return out
}

// instanceID reads the instance id from a provider ID (aws:///ZONE/ID).
func instanceID(providerID string) (string, error) {
	_, id, err := parseProviderID(providerID)
	return id, err
}

// parseProviderID reads the zone and instance id of a provider ID (aws:///ZONE/ID).
func parseProviderID(providerID string) (zone, id string, err error) {
	rest, ok := strings.CutPrefix(providerID, "aws:///")
	i := strings.LastIndexByte(rest, '/')
	if !ok || i < 0 || !strings.HasPrefix(rest[i+1:], "i-") {
		return "", "", fmt.Errorf("provider id %q is not aws:///ZONE/INSTANCE-ID", providerID)
	}
	return rest[:i], rest[i+1:], nil
}

// Get returns the instance with this provider ID as a NodeClaim. A terminated or unknown
// instance is a *cloudprovider.NodeClaimNotFoundError.
func (p *Provider) Get(ctx context.Context, providerID string) (*karpv1.NodeClaim, error) {
	id, err := instanceID(providerID)
	if err != nil {
		return nil, err
	}
	instances, err := p.describe(ctx, filter("instance-id", id))
	if err != nil {
		return nil, fmt.Errorf("getting %s: %w", providerID, err)
	}
	for _, inst := range instances {
		if inst.id == id && !inst.gone() {
			return p.nodeClaimFromInstance(ctx, inst), nil
		}
	}
	return nil, &cloudprovider.NodeClaimNotFoundError{ProviderID: providerID}
}

// List returns every instance of this cluster that the provider (or Karpenter) launched and that
// is not terminated: those tagged kubernetes.io/cluster/NAME=owned and karpenter.sh/nodeclaim.
func (p *Provider) List(ctx context.Context) ([]*karpv1.NodeClaim, error) {
	instances, err := p.clusterInstances(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*karpv1.NodeClaim, 0, len(instances))
	for _, inst := range instances {
		out = append(out, p.nodeClaimFromInstance(ctx, inst))
	}
	return out, nil
}

// clusterInstances lists the live instances of this cluster that a NodeClaim launched.
func (p *Provider) clusterInstances(ctx context.Context) ([]instance, error) {
	instances, err := p.describe(ctx,
		filter("tag:"+p.clusterTagKey(), "owned"),
		filter("tag-key", awsv1.TagKeyNodeClaim),
		ec2types.Filter{Name: sdkaws.String("instance-state-name"), Values: liveStates()},
	)
	if err != nil {
		return nil, fmt.Errorf("listing the instances of cluster %q: %w", p.opts.ClusterName, err)
	}
	return instances, nil
}

// nodeClaimFromInstance describes an instance as a NodeClaim: name, labels, launch time,
// provider ID, image, and the capacity of its type with its node class's kubelet settings (the
// defaults when the node class is gone). An instance shutting down has a deletion timestamp.
func (p *Provider) nodeClaimFromInstance(ctx context.Context, inst instance) *karpv1.NodeClaim {
	nodeClaim := &karpv1.NodeClaim{}
	nodeClaim.Name = inst.tags[awsv1.TagKeyNodeClaim]
	nodeClaim.CreationTimestamp = metav1.NewTime(inst.launchTime)
	nodeClaim.Labels = map[string]string{}
	if info, ok := p.data.snapshot().byName[inst.instanceType]; ok {
		opts := instancetype.Options{}
		if name := inst.tags[awsv1.TagKeyNodeClass]; name != "" {
			if nc, err := p.opts.NodeClass(ctx, name); err == nil && nc != nil {
				opts = instancetype.OptionsFor(nc)
			}
		}
		it := instancetype.New(info, cloudprovider.Offerings{{Zone: inst.zone, CapacityType: inst.capacityType, Available: true}}, opts)
		nodeClaim.Labels = p.instanceLabels(it, inst.zone, inst.capacityType)
		nodeClaim.Status.Capacity = it.Capacity
		nodeClaim.Status.Allocatable = it.Allocatable()
	} else {
		nodeClaim.Labels = map[string]string{
			corev1.LabelInstanceTypeStable: inst.instanceType,
			corev1.LabelTopologyZone:       inst.zone,
			corev1.LabelTopologyRegion:     p.opts.Region,
			karpv1.CapacityTypeLabelKey:    inst.capacityType,
		}
	}
	if pool := inst.tags[awsv1.TagKeyNodePool]; pool != "" {
		nodeClaim.Labels[karpv1.NodePoolLabelKey] = pool
	}
	if nc := inst.tags[awsv1.TagKeyNodeClass]; nc != "" {
		nodeClaim.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: awsv1.Group, Kind: "EC2NodeClass", Name: nc}
	}
	if inst.state == string(ec2types.InstanceStateNameShuttingDown) {
		now := metav1.NewTime(p.clock.Now())
		nodeClaim.DeletionTimestamp = &now
	}
	nodeClaim.Status.ProviderID = providerID(inst.zone, inst.id)
	nodeClaim.Status.ImageID = inst.imageID
	return nodeClaim
}

// Delete terminates the NodeClaim's instance, batched with concurrent deletions into one
// TerminateInstances call. It returns nil while the instance is shutting down, and a
// *cloudprovider.NodeClaimNotFoundError once it is gone (terminated or unknown to EC2). A
// NodeClaim without a provider ID (its launch was never recorded) has its instances found by
// their karpenter.sh/nodeclaim tag.
func (p *Provider) Delete(ctx context.Context, nodeClaim *karpv1.NodeClaim) error {
	if nodeClaim.Status.ProviderID == "" {
		return p.deleteUnrecorded(ctx, nodeClaim)
	}
	zone, id, err := parseProviderID(nodeClaim.Status.ProviderID)
	if err != nil {
		return fmt.Errorf("deleting nodeclaim %q: %w", nodeClaim.Name, err)
	}
	res, err := p.terminator.terminate(ctx, id)
	if err != nil {
		p.opts.Measure(journal.Measurement{Measure: journal.MeasureTerminationFailure, Zone: zone, ZoneID: nodeClaim.Labels[awsv1.LabelTopologyZoneID]})
		return fmt.Errorf("deleting nodeclaim %q: %w", nodeClaim.Name, err)
	}
	if res.gone() {
		return &cloudprovider.NodeClaimNotFoundError{ProviderID: nodeClaim.Status.ProviderID}
	}
	return nil
}

// deleteUnrecorded terminates the live instances tagged for a NodeClaim whose launch result was
// never recorded, such as after a crash between CreateFleet and the status update.
func (p *Provider) deleteUnrecorded(ctx context.Context, nodeClaim *karpv1.NodeClaim) error {
	instances, err := p.nodeClaimInstances(ctx, nodeClaim.Name)
	if err != nil {
		return fmt.Errorf("deleting nodeclaim %q: %w", nodeClaim.Name, err)
	}
	live := 0
	for _, inst := range instances {
		res, err := p.terminator.terminate(ctx, inst.id)
		if err != nil {
			return fmt.Errorf("deleting nodeclaim %q: %w", nodeClaim.Name, err)
		}
		if !res.gone() {
			live++
		}
	}
	if live == 0 {
		return &cloudprovider.NodeClaimNotFoundError{}
	}
	return nil
}

// nodeClaimInstances lists the live instances of this cluster tagged for a NodeClaim.
func (p *Provider) nodeClaimInstances(ctx context.Context, name string) ([]instance, error) {
	return p.describe(ctx,
		filter("tag:"+p.clusterTagKey(), "owned"),
		filter("tag:"+awsv1.TagKeyNodeClaim, name),
		ec2types.Filter{Name: sdkaws.String("instance-state-name"), Values: liveStates()},
	)
}
