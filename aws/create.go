package aws

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// Create launches one instance for the NodeClaim with CreateFleet and returns the NodeClaim with
// its provider ID, image, capacity, allocatable, labels and annotations filled.
//
// It costs one CreateFleet call when the node class's subnets, security groups, AMIs, instance
// profile and launch templates are cached (plus CreateLaunchTemplate for a configuration not seen
// before); it never reads instance types or prices unless none were ever read. Offerings EC2 had
// no capacity for are marked unavailable for UnavailableFor; when no instance starts the error is
// a *cloudprovider.InsufficientCapacityError. The fleet's client token derives from the
// NodeClaim's name and UID, so a retry after a crash returns the instance of the first call.
func (p *Provider) Create(ctx context.Context, nodeClaim *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	nc, err := p.nodeClassOf(ctx, nodeClaim.Spec.NodeClassRef)
	if err != nil {
		return nil, fmt.Errorf("nodeclaim %q: %w", nodeClaim.Name, err)
	}
	r, err := p.resolve(ctx, nc, true)
	if err != nil {
		return nil, fmt.Errorf("nodeclaim %q: %w", nodeClaim.Name, err)
	}
	types, err := p.instanceTypesFor(ctx, nc, r)
	if err != nil {
		return nil, fmt.Errorf("nodeclaim %q: %w", nodeClaim.Name, err)
	}
	plan, ok := planLaunch(claimRequirements(nodeClaim), nodeClaim.Spec.Resources.Requests, types, zonesOf(r.subnets))
	if !ok {
		return nil, &cloudprovider.InsufficientCapacityError{NodeClaim: nodeClaim.Name,
			Cause: fmt.Errorf("no instance type of ec2nodeclass %q fits the requirements and requests with an available offering", nc.Name)}
	}
	inst, err := p.launch(ctx, nodeClaim, nc, r, plan)
	if err != nil {
		return nil, err
	}
	it := findType(types, inst.instanceType)
	if it == nil {
		return nil, fmt.Errorf("nodeclaim %q: EC2 launched %s (type %s), which is not among the types offered", nodeClaim.Name, inst.id, inst.instanceType)
	}
	image, _ := amiFor(r.amis, it.Requirements.Get(corev1.LabelArchStable).Any())
	return p.launchedNodeClaim(nodeClaim, nc, r, it, inst, image.ID), nil
}

// launch makes sure the launch templates exist and calls CreateFleet, retrying once when a
// remembered template has gone.
func (p *Provider) launch(ctx context.Context, nodeClaim *karpv1.NodeClaim, nc *awsv1.EC2NodeClass, r *resolved, plan launchPlan) (*launched, error) {
	templates, configs, err := p.templatesFor(ctx, nodeClaim, nc, r, plan)
	if err != nil {
		return nil, fmt.Errorf("nodeclaim %q: %w", nodeClaim.Name, err)
	}
	subnets := zonalSubnets(r.subnets, &p.inflight)
	input := fleetInput(plan, templates, subnets, ClientToken(nodeClaim), p.instanceTags(nodeClaim, nc), nc.Spec.Context)
	out, err := p.clients.EC2.CreateFleet(ctx, input)
	if err != nil && errorCode(err) == "InvalidLaunchTemplateName.NotFoundException" {
		for _, cfg := range configs {
			p.templateCache.forget(cfg.name())
		}
		if _, _, err := p.templatesFor(ctx, nodeClaim, nc, r, plan); err != nil {
			return nil, fmt.Errorf("nodeclaim %q: %w", nodeClaim.Name, err)
		}
		out, err = p.clients.EC2.CreateFleet(ctx, input)
	}
	if err != nil {
		if errorCode(err) == "IdempotentParameterMismatch" {
			// An earlier call with this client token launched already, with other parameters
			// (prices moved since): find what it launched.
			return p.launchedEarlier(ctx, nodeClaim, err)
		}
		reason := launchReason(err.Error())
		return nil, &cloudprovider.CreateError{Reason: reason, Message: "creating the fleet failed: " + reason,
			Err: fmt.Errorf("nodeclaim %q: ec2 CreateFleet: %w", nodeClaim.Name, err)}
	}
	subnetZones, zoneIDs := map[string]string{}, map[string]string{}
	for _, s := range r.subnets {
		subnetZones[s.ID], zoneIDs[s.Zone] = s.Zone, s.ZoneID
	}
	outcome := readFleet(out, input, subnetZones)
	for _, o := range outcome.failed {
		p.unavailable.mark(o)
	}
	for _, f := range outcome.failures {
		p.opts.Measure(journal.Measurement{Measure: journal.MeasureLaunchFailure, Zone: f.zone, ZoneID: zoneIDs[f.zone],
			CapacityType: f.capacityType, Reason: launchReason(f.said)})
	}
	if outcome.instance == nil {
		failed := make([]string, len(outcome.failed))
		for i, o := range outcome.failed {
			failed[i] = o.String()
		}
		if outcome.capacityOnly {
			return nil, &cloudprovider.InsufficientCapacityError{NodeClaim: nodeClaim.Name, Offerings: failed, Cause: outcome.err}
		}
		if perr := (*PermissionError)(nil); errors.As(outcome.err, &perr) {
			p.clients.Calls.deny(perr.Action, perr.Err)
		}
		reason := launchReason(outcome.err.Error())
		return nil, &cloudprovider.CreateError{Reason: reason, Message: "the fleet launched nothing: " + reason,
			Err: fmt.Errorf("nodeclaim %q: ec2 CreateFleet launched nothing: %w", nodeClaim.Name, outcome.err)}
	}
	p.inflight.take(outcome.instance.subnetID)
	return outcome.instance, nil
}

// launchedEarlier finds the instance an earlier CreateFleet launched for the NodeClaim, by its
// karpenter.sh/nodeclaim tag. When there is none, the NodeClaim is out of capacity for good.
func (p *Provider) launchedEarlier(ctx context.Context, nodeClaim *karpv1.NodeClaim, cause error) (*launched, error) {
	instances, err := p.nodeClaimInstances(ctx, nodeClaim.Name)
	if err != nil {
		return nil, fmt.Errorf("nodeclaim %q: finding the instance of an earlier launch (%v): %w", nodeClaim.Name, cause, err)
	}
	for _, inst := range instances {
		if inst.state != string(ec2types.InstanceStateNameShuttingDown) {
			return &launched{id: inst.id, instanceType: inst.instanceType, zone: inst.zone, subnetID: inst.subnetID, capacityType: inst.capacityType}, nil
		}
	}
	// The earlier attempt launched nothing (its offerings had no capacity) and EC2 holds its
	// token: this NodeClaim cannot launch again, and the engine replaces it on this error.
	return nil, &cloudprovider.InsufficientCapacityError{NodeClaim: nodeClaim.Name,
		Cause: fmt.Errorf("an earlier launch with this NodeClaim's client token launched nothing, and EC2 refuses the token with other parameters: %w", cause)}
}

// templatesFor returns the launch template name per architecture of the plan, creating the
// templates that do not exist yet.
func (p *Provider) templatesFor(ctx context.Context, nodeClaim *karpv1.NodeClaim, nc *awsv1.EC2NodeClass, r *resolved, plan launchPlan) (map[string]string, []*launchConfig, error) {
	family := nc.AMIFamily()
	data, err := userData(family, bootstrap{
		ClusterName: p.opts.ClusterName,
		Endpoint:    p.opts.ClusterEndpoint,
		CABundle:    p.opts.ClusterCABundle,
		ServiceCIDR: p.opts.ClusterServiceCIDR,
		Kubelet:     nc.Spec.Kubelet,
		Labels:      nodeClaim.Labels,
		Taints:      append(append([]corev1.Taint{}, nodeClaim.Spec.Taints...), nodeClaim.Spec.StartupTaints...),
		Custom:      nc.Spec.UserData,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("ec2nodeclass %q: %w", nc.Name, err)
	}
	devices := nc.Spec.BlockDeviceMappings
	if len(devices) == 0 {
		devices = defaultBlockDevices(family)
	}
	templates := map[string]string{}
	var configs []*launchConfig
	for _, c := range plan.choices {
		if _, done := templates[c.arch]; done {
			continue
		}
		image, ok := amiFor(r.amis, c.arch)
		if !ok {
			continue
		}
		cfg := &launchConfig{
			ClusterName:        p.opts.ClusterName,
			ImageID:            image.ID,
			UserData:           data,
			BlockDevices:       devices,
			Metadata:           metadataOptions(nc),
			SecurityGroups:     securityGroupIDs(r.securityGroups),
			InstanceProfile:    r.instanceProfile,
			AssociatePublicIP:  nc.Spec.AssociatePublicIPAddress,
			DetailedMonitoring: nc.Spec.DetailedMonitoring != nil && *nc.Spec.DetailedMonitoring,
			Tags:               p.resourceTags(nc),
			NodeClass:          nc.Name,
		}
		if tenancyOf(nodeClaim) == instancetype.TenancyDedicated {
			cfg.Tenancy = instancetype.TenancyDedicated
		}
		cfg.IPPrefixCount, cfg.ConnectionTracking, cfg.NetworkInterfaces = nc.Spec.IPPrefixCount, nc.Spec.ConnectionTracking, nc.Spec.NetworkInterfaces
		if o := nc.Spec.CPUOptions; o != nil && o.NestedVirtualization != nil {
			cfg.NestedVirtualization = *o.NestedVirtualization
		}
		name, err := p.launchTemplate(ctx, cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("ec2nodeclass %q: %w", nc.Name, err)
		}
		templates[c.arch] = name
		configs = append(configs, cfg)
	}
	return templates, configs, nil
}

// resourceTags are the tags of everything the provider creates for a node class: the node
// class's own tags, then the cluster and node class tags, which it may not override.
func (p *Provider) resourceTags(nc *awsv1.EC2NodeClass) map[string]string {
	tags := maps.Clone(nc.Spec.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	tags[p.clusterTagKey()] = "owned"
	tags[awsv1.TagKeyEKSClusterName] = p.opts.ClusterName
	tags[awsv1.TagKeyNodeClass] = nc.Name
	return tags
}

// instanceTags are the tags of an instance and its volumes: the resource tags, the NodePool and
// NodeClaim, and a Name (the NodeClaim's, unless the node class sets one).
func (p *Provider) instanceTags(nodeClaim *karpv1.NodeClaim, nc *awsv1.EC2NodeClass) map[string]string {
	tags := p.resourceTags(nc)
	tags[awsv1.TagKeyNodeClaim] = nodeClaim.Name
	if pool := nodeClaim.Labels[karpv1.NodePoolLabelKey]; pool != "" {
		tags[awsv1.TagKeyNodePool] = pool
	}
	if _, ok := nc.Spec.Tags["Name"]; !ok {
		tags["Name"] = nodeClaim.Name
	}
	return tags
}

// ClientToken is the CreateFleet idempotency token of a NodeClaim: a hash of its name and UID,
// so that every launch attempt of one NodeClaim, in any process, is the same request to EC2.
func ClientToken(nodeClaim *karpv1.NodeClaim) string {
	sum := sha256.Sum256([]byte(nodeClaim.Name + "/" + string(nodeClaim.UID)))
	return "nodepilot-" + hex.EncodeToString(sum[:24])
}

// claimRequirements are the NodeClaim's requirements and its labels, as requirements.
func claimRequirements(nodeClaim *karpv1.NodeClaim) requirements.Requirements {
	rs := make([]*requirements.Requirement, 0, len(nodeClaim.Spec.Requirements)+len(nodeClaim.Labels))
	for _, r := range nodeClaim.Spec.Requirements {
		rs = append(rs, requirements.New(r.Key, r.Operator, r.Values...).WithMinValues(r.MinValues))
	}
	return requirements.Of(rs...).Merge(requirements.FromLabels(nodeClaim.Labels))
}

func findType(types []*cloudprovider.InstanceType, name string) *cloudprovider.InstanceType {
	for _, it := range types {
		if it.Name == name {
			return it
		}
	}
	return nil
}

// launchedNodeClaim is the NodeClaim after its launch.
func (p *Provider) launchedNodeClaim(nodeClaim *karpv1.NodeClaim, nc *awsv1.EC2NodeClass, r *resolved, it *cloudprovider.InstanceType, inst *launched, imageID string) *karpv1.NodeClaim {
	out := nodeClaim.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	maps.Copy(out.Labels, p.instanceLabels(it, inst.zone, inst.capacityType))
	out.Labels[awsv1.LabelInstanceTenancy] = tenancyOf(nodeClaim)
	for _, s := range r.subnets {
		if s.ID == inst.subnetID && s.ZoneID != "" {
			out.Labels[awsv1.LabelTopologyZoneID] = s.ZoneID
		}
	}
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[awsv1.AnnotationEC2NodeClassHash] = p.NodeClassHash(nc)
	out.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] = awsv1.EC2NodeClassHashVersion
	if r.instanceProfile != "" {
		out.Annotations[awsv1.AnnotationInstanceProfile] = r.instanceProfile
	}
	out.Status.ProviderID = providerID(inst.zone, inst.id)
	out.Status.ImageID = imageID
	out.Status.Capacity = it.Capacity.DeepCopy()
	out.Status.Allocatable = it.Allocatable()
	return out
}

// instanceLabels are the labels of a node of a type, zone and capacity type: the type's
// well-known labels, the zone, the region and the capacity type.
func (p *Provider) instanceLabels(it *cloudprovider.InstanceType, zone, capacityType string) map[string]string {
	labels := it.Requirements.Labels()
	labels[corev1.LabelTopologyZone] = zone
	labels[corev1.LabelTopologyRegion] = p.opts.Region
	labels[karpv1.CapacityTypeLabelKey] = capacityType
	return labels
}

// tenancyOf is the tenancy a NodeClaim launches with, as Karpenter picks it: default unless its
// requirements allow only dedicated.
func tenancyOf(nodeClaim *karpv1.NodeClaim) string {
	if r := claimRequirements(nodeClaim).Get(awsv1.LabelInstanceTenancy); r != nil && !r.Has(instancetype.TenancyDefault) && r.Has(instancetype.TenancyDedicated) {
		return instancetype.TenancyDedicated
	}
	return instancetype.TenancyDefault
}

// providerID is the Kubernetes provider ID of an EC2 instance.
func providerID(zone, instanceID string) string { return "aws:///" + zone + "/" + instanceID }
