package aws

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/state"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// NodeClassStatus resolves an EC2NodeClass's subnets, security groups, AMIs and instance profile
// (through the caches, creating the instance profile of spec.role if needed) and returns the
// status the kube layer writes: the resolved values and one condition per part, Ready when all
// hold. Conditions keep their transition time while their status does not change. It never
// fails: what cannot be resolved is a False condition whose message says why.
func (p *Provider) NodeClassStatus(ctx context.Context, nc *awsv1.EC2NodeClass) awsv1.EC2NodeClassStatus {
	status := awsv1.EC2NodeClassStatus{Conditions: append([]metav1.Condition(nil), nc.Status.Conditions...)}
	now := metav1.NewTime(p.clock.Now())
	set := func(kind string, err error, ok bool, notFoundReason, notFoundMessage string) bool {
		c := metav1.Condition{Type: kind, Status: metav1.ConditionTrue, Reason: kind, ObservedGeneration: nc.Generation, LastTransitionTime: now}
		switch {
		case err != nil:
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, "ResolutionFailed", err.Error()
			if unsupported := (*unsupportedAliasError)(nil); errors.As(err, &unsupported) {
				c.Reason = "UnsupportedAlias" // Karpenter's reason
			}
		case !ok:
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, notFoundReason, notFoundMessage
		}
		meta.SetStatusCondition(&status.Conditions, c)
		return c.Status == metav1.ConditionTrue
	}

	subnets, err := p.subnets(ctx, nc)
	for _, s := range subnets {
		status.Subnets = append(status.Subnets, awsv1.Subnet{ID: s.ID, Zone: s.Zone, ZoneID: s.ZoneID})
	}
	ready := set(awsv1.ConditionTypeSubnetsReady, err, len(subnets) > 0, "SubnetsNotFound", "subnetSelectorTerms select no subnet")

	groups, err := p.securityGroups(ctx, nc)
	for _, g := range groups {
		status.SecurityGroups = append(status.SecurityGroups, awsv1.SecurityGroup{ID: g.ID, Name: g.Name})
	}
	ready = set(awsv1.ConditionTypeSecurityGroupsReady, err, len(groups) > 0, "SecurityGroupsNotFound", "securityGroupSelectorTerms select no security group") && ready

	amis, err := p.amis(ctx, nc)
	for _, a := range amis {
		status.AMIs = append(status.AMIs, awsv1.AMI{ID: a.ID, Name: a.Name, Deprecated: a.Deprecated,
			Requirements: []corev1.NodeSelectorRequirement{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{a.Arch}}}})
	}
	ready = set(awsv1.ConditionTypeAMIsReady, err, len(amis) > 0, "AMINotFound", "amiSelectorTerms select no image") && ready

	profile, err := p.instanceProfile(ctx, nc)
	status.InstanceProfile = profile
	ready = set(awsv1.ConditionTypeInstanceProfileReady, err, profile != "", "InstanceProfileNotFound", "no instance profile") && ready

	// Capacity reservations are not launched into: this class's nodes launch as on-demand or spot.
	// The class stays Ready (its NodePools keep provisioning) and the condition says what is not
	// done, instead of every NodePool on it stopping without a word.
	set(awsv1.ConditionTypeCapacityReservationsReady, nil, len(nc.Spec.CapacityReservationSelectorTerms) == 0, "Unsupported",
		"nodepilot does not launch into the capacity reservations capacityReservationSelectorTerms select: nodes of this class launch as on-demand or spot")
	ready = set(awsv1.ConditionTypeValidationSucceeded, nil, true, "", "") && ready

	set(awsv1.ConditionTypeReady, nil, ready, "NotReady", "not ready: "+unreadyConditions(status.Conditions))
	return status
}

// unreadyConditions names the conditions that are not True.
func unreadyConditions(conditions []metav1.Condition) string {
	var out string
	for _, c := range conditions {
		if c.Type != awsv1.ConditionTypeReady && c.Status != metav1.ConditionTrue {
			if out != "" {
				out += ", "
			}
			out += c.Type
		}
	}
	return out
}

// NodeClasses are the EC2NodeClasses among the engine's node classes, in its order (by name).
func NodeClasses(snap *state.Snapshot) []*awsv1.EC2NodeClass {
	out := make([]*awsv1.EC2NodeClass, 0, len(snap.NodeClasses))
	for _, nc := range snap.NodeClasses {
		if ec2, ok := nc.(*awsv1.EC2NodeClass); ok {
			out = append(out, ec2)
		}
	}
	return out
}

// NodeClass is the named EC2NodeClass among the engine's node classes, or nil.
func NodeClass(snap *state.Snapshot, name string) *awsv1.EC2NodeClass {
	nc, _ := snap.NodeClass(name).(*awsv1.EC2NodeClass)
	return nc
}
