package enginetest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// Create launches one instance for the NodeClaim and returns the NodeClaim with its labels
// (instance type, zone, region, capacity type, arch, os and the type's other well-known labels,
// on top of its own, the NodePool's included) and status (provider ID aws:///ZONE/i-N, image,
// capacity, allocatable) filled.
//
// It chooses among the offerings the NodeClaim's requirements allow (instance type, zone,
// capacity type and every other label of the type) whose type's allocatable fits its resource
// requests and which are available: spot when any such spot offering exists, else on-demand,
// cheapest first. Offerings an injected shortage covers fail and are marked unavailable; when
// none launches the error is a *cloudprovider.InsufficientCapacityError. A second Create for
// the same NodeClaim (name and UID) returns the instance of the first, whatever its state now,
// as an EC2 client token does.
func (c *Cloud) Create(ctx context.Context, nc *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	defer c.end("Create")
	if err := c.begin(ctx, "Create"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, inst := range c.instances {
		if inst.NodeClaim == nc.Name && inst.NodeClaimUID == string(nc.UID) {
			return launchedNodeClaim(nc, inst), nil
		}
	}
	now := c.clock.Now()
	choices := c.choices(nc, now)
	if len(choices) == 0 {
		return nil, &cloudprovider.InsufficientCapacityError{NodeClaim: nc.Name,
			Cause: fmt.Errorf("no instance type fits the requirements and requests of nodeclaim %q with an available offering", nc.Name)}
	}
	capacityType := choices[0].offering.CapacityType
	var failed []string
	for _, ch := range choices {
		if ch.offering.CapacityType != capacityType {
			break
		}
		key := OfferingKey{InstanceType: ch.it.Name, Zone: ch.offering.Zone, CapacityType: capacityType}
		if c.short(key) {
			c.markUnavailable(key, now)
			failed = append(failed, key.String())
			continue
		}
		return launchedNodeClaim(nc, c.launch(nc, ch, now)), nil
	}
	return nil, &cloudprovider.InsufficientCapacityError{NodeClaim: nc.Name, Offerings: failed,
		Cause: fmt.Errorf("InsufficientInstanceCapacity: no %s capacity in %s", capacityType, strings.Join(failed, ", "))}
}

// choice is an instance type and one of its offerings.
type choice struct {
	it       *cloudprovider.InstanceType
	offering cloudprovider.Offering
}

// choices lists what a NodeClaim may launch now, spot first, then by price, type and zone; the
// caller holds the lock.
func (c *Cloud) choices(nc *karpv1.NodeClaim, now time.Time) []choice {
	reqs := claimRequirements(nc)
	var out []choice
	for _, it := range c.types {
		if it.Requirements.Intersects(reqs) != nil || !fits(nc.Spec.Resources.Requests, it.Allocatable()) {
			continue
		}
		for _, o := range it.Offerings.Compatible(reqs) {
			if !c.isUnavailable(OfferingKey{InstanceType: it.Name, Zone: o.Zone, CapacityType: o.CapacityType}, now) {
				out = append(out, choice{it: it, offering: o})
			}
		}
	}
	slices.SortFunc(out, func(a, b choice) int {
		aSpot, bSpot := a.offering.CapacityType == karpv1.CapacityTypeSpot, b.offering.CapacityType == karpv1.CapacityTypeSpot
		if aSpot != bSpot {
			if aSpot {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.offering.Price, b.offering.Price), strings.Compare(a.it.Name, b.it.Name),
			strings.Compare(a.offering.Zone, b.offering.Zone))
	})
	return out
}

// launch starts an instance; the caller holds the lock.
func (c *Cloud) launch(nc *karpv1.NodeClaim, ch choice, now time.Time) *Instance {
	id := fmt.Sprintf("i-%d", len(c.instances)+1)
	labels := maps.Clone(nc.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, ch.it.Requirements.Labels())
	labels[corev1.LabelTopologyZone] = ch.offering.Zone
	labels[corev1.LabelTopologyRegion] = region(ch.offering.Zone)
	labels[karpv1.CapacityTypeLabelKey] = ch.offering.CapacityType
	arch := labels[corev1.LabelArchStable]
	inst := &Instance{
		ID:            id,
		ProviderID:    "aws:///" + ch.offering.Zone + "/" + id,
		NodeClaim:     nc.Name,
		NodeClaimUID:  string(nc.UID),
		InstanceType:  ch.it.Name,
		Zone:          ch.offering.Zone,
		CapacityType:  ch.offering.CapacityType,
		ImageID:       "ami-" + arch,
		Price:         ch.offering.Price,
		Labels:        labels,
		Taints:        slices.Clone(nc.Spec.Taints),
		StartupTaints: slices.Clone(nc.Spec.StartupTaints),
		Capacity:      ch.it.Capacity.DeepCopy(),
		Allocatable:   ch.it.Allocatable(),
		LaunchedAt:    now,
		State:         InstanceRunning,
	}
	c.instances = append(c.instances, inst)
	c.launches[nc.Name]++
	c.version++
	return inst
}

// launchedNodeClaim is the NodeClaim as Create returns it for an instance.
func launchedNodeClaim(nc *karpv1.NodeClaim, inst *Instance) *karpv1.NodeClaim {
	out := nc.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	maps.Copy(out.Labels, inst.Labels)
	// As the AWS provider, the launch annotates the NodeClaim (with the version of the node class
	// hash; the fake has no node class to hash), for the lifecycle to keep.
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] = awsv1.EC2NodeClassHashVersion
	out.Status.ProviderID = inst.ProviderID
	out.Status.ImageID = inst.ImageID
	out.Status.Capacity = inst.Capacity.DeepCopy()
	out.Status.Allocatable = inst.Allocatable.DeepCopy()
	return out
}

// asNodeClaim describes an instance as Get and List do: its NodeClaim's name, its labels, launch
// time and status.
func asNodeClaim(inst *Instance) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: inst.NodeClaim, Labels: maps.Clone(inst.Labels), CreationTimestamp: metav1.NewTime(inst.LaunchedAt)},
		Status: karpv1.NodeClaimStatus{ProviderID: inst.ProviderID, ImageID: inst.ImageID, Capacity: inst.Capacity.DeepCopy(),
			Allocatable: inst.Allocatable.DeepCopy()},
	}
}

// claimRequirements are a NodeClaim's requirements narrowed by its labels.
func claimRequirements(nc *karpv1.NodeClaim) requirements.Requirements {
	rs := make([]*requirements.Requirement, 0, len(nc.Spec.Requirements))
	for _, r := range nc.Spec.Requirements {
		rs = append(rs, requirements.New(r.Key, r.Operator, r.Values...))
	}
	return requirements.Of(rs...).Merge(requirements.FromLabels(nc.Labels))
}

// fits reports whether every requested resource is within allocatable.
func fits(requests, allocatable corev1.ResourceList) bool {
	for name, q := range requests {
		a, ok := allocatable[name]
		if !ok && !q.IsZero() || ok && q.Cmp(a) > 0 {
			return false
		}
	}
	return true
}

// region is a zone's region: "us-east-1a" is in "us-east-1".
func region(zone string) string {
	return strings.TrimRightFunc(zone, func(r rune) bool { return r >= 'a' && r <= 'z' })
}
