package aws

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// MaxFleetInstanceTypes is the most instance types one CreateFleet call offers EC2.
const MaxFleetInstanceTypes = 60

// capacityErrorCodes are the CreateFleet error codes that mean "no capacity for this offering
// now": the offering is marked unavailable and another one is tried.
func capacityErrorCodes() map[string]bool {
	return map[string]bool{
		"InsufficientInstanceCapacity":      true,
		"MaxSpotInstanceCountExceeded":      true,
		"VcpuLimitExceeded":                 true,
		"UnfulfillableCapacity":             true,
		"Unsupported":                       true,
		"InsufficientFreeAddressesInSubnet": true,
		"InsufficientCapacity":              true,
		"ReservationCapacityExceeded":       true,
		"MaxFleetCountExceeded":             true,
	}
}

// fleetChoice is one instance type offered to a fleet, in the zones it may launch in.
type fleetChoice struct {
	it    *cloudprovider.InstanceType
	arch  string
	price float64
	zones []string
}

// launchPlan is what one CreateFleet call asks for.
type launchPlan struct {
	capacityType string
	// choices are the compatible types, cheapest first, at most MaxFleetInstanceTypes.
	choices []fleetChoice
}

// planLaunch picks the capacity type and the instance types of a launch: the types whose labels
// the NodeClaim's requirements allow, whose allocatable resources hold its requests and which
// have an available offering it allows. Spot is used when the NodeClaim allows it and any such
// spot offering is available; on-demand otherwise. Only zones in zones (the node class's zones
// with a subnet) are used. ok is false when nothing fits.
func planLaunch(reqs requirements.Requirements, requests corev1.ResourceList, types []*cloudprovider.InstanceType, zones []string) (launchPlan, bool) {
	var compatible []*cloudprovider.InstanceType
	for _, it := range types {
		if it.Requirements.Intersects(reqs) != nil || (len(requests) > 0 && !fits(requests, it.Allocatable())) {
			continue
		}
		compatible = append(compatible, it)
	}
	for _, ct := range []string{karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand} {
		if r := reqs.Get(karpv1.CapacityTypeLabelKey); r != nil && !r.Has(ct) {
			continue
		}
		plan := launchPlan{capacityType: ct}
		ctReqs := reqs.Add(requirements.New(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, ct))
		for _, it := range compatible {
			choice := fleetChoice{it: it, arch: it.Requirements.Get(corev1.LabelArchStable).Any()}
			for _, o := range it.Offerings.Compatible(ctReqs) {
				if !slices.Contains(zones, o.Zone) {
					continue
				}
				if len(choice.zones) == 0 || o.Price < choice.price {
					choice.price = o.Price
				}
				choice.zones = append(choice.zones, o.Zone)
			}
			if len(choice.zones) > 0 {
				slices.Sort(choice.zones)
				plan.choices = append(plan.choices, choice)
			}
		}
		if len(plan.choices) == 0 {
			continue
		}
		slices.SortFunc(plan.choices, func(a, b fleetChoice) int {
			return cmp.Or(cmp.Compare(a.price, b.price), strings.Compare(a.it.Name, b.it.Name))
		})
		if len(plan.choices) > MaxFleetInstanceTypes {
			plan.choices = plan.choices[:MaxFleetInstanceTypes]
		}
		return plan, true
	}
	return launchPlan{}, false
}

// fits reports whether every requested resource is within allocatable.
func fits(requests, allocatable corev1.ResourceList) bool {
	for name, q := range requests {
		if a, ok := allocatable[name]; !ok && !q.IsZero() || ok && q.Cmp(a) > 0 {
			return false
		}
	}
	return true
}

// fleetInput builds the CreateFleet request of a plan: instant, one instance, spot with
// price-capacity-optimized or on-demand with lowest-price, and per architecture one launch
// template config whose overrides are each type x the subnet of each of its zones.
func fleetInput(plan launchPlan, templates map[string]string, subnets map[string]subnet, clientToken string, tags map[string]string, fleetContext *string) *ec2.CreateFleetInput {
	var configs []ec2types.FleetLaunchTemplateConfigRequest
	for _, arch := range slices.Sorted(maps.Keys(templates)) {
		var overrides []ec2types.FleetLaunchTemplateOverridesRequest
		for _, c := range plan.choices {
			if c.arch != arch {
				continue
			}
			for _, zone := range c.zones {
				s, ok := subnets[zone]
				if !ok {
					continue
				}
				overrides = append(overrides, ec2types.FleetLaunchTemplateOverridesRequest{
					InstanceType:     ec2types.InstanceType(c.it.Name),
					SubnetId:         sdkaws.String(s.ID),
					AvailabilityZone: sdkaws.String(zone),
				})
			}
		}
		if len(overrides) == 0 {
			continue
		}
		configs = append(configs, ec2types.FleetLaunchTemplateConfigRequest{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{
				LaunchTemplateName: sdkaws.String(templates[arch]),
				Version:            sdkaws.String("$Latest"),
			},
			Overrides: overrides,
		})
	}
	input := &ec2.CreateFleetInput{
		Type:                  ec2types.FleetTypeInstant,
		ClientToken:           sdkaws.String(clientToken),
		Context:               fleetContext,
		LaunchTemplateConfigs: configs,
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			TotalTargetCapacity:       sdkaws.Int32(1),
			DefaultTargetCapacityType: ec2types.DefaultTargetCapacityType(plan.capacityType),
		},
	}
	// Every resource the fleet creates carries the tags, which the IAM policy's conditions on
	// request tags rely on.
	resources := []ec2types.ResourceType{ec2types.ResourceTypeInstance, ec2types.ResourceTypeVolume,
		ec2types.ResourceTypeNetworkInterface, ec2types.ResourceTypeFleet}
	if plan.capacityType == karpv1.CapacityTypeSpot {
		resources = append(resources, ec2types.ResourceTypeSpotInstancesRequest)
	}
	for _, rt := range resources {
		input.TagSpecifications = append(input.TagSpecifications, ec2types.TagSpecification{ResourceType: rt, Tags: ec2Tags(tags)})
	}
	if plan.capacityType == karpv1.CapacityTypeSpot {
		input.SpotOptions = &ec2types.SpotOptionsRequest{AllocationStrategy: ec2types.SpotAllocationStrategyPriceCapacityOptimized}
	} else {
		input.OnDemandOptions = &ec2types.OnDemandOptionsRequest{AllocationStrategy: ec2types.FleetOnDemandAllocationStrategyLowestPrice}
	}
	return input
}

// launched is the instance a fleet started.
type launched struct {
	id, instanceType, zone, subnetID, capacityType string
}

// fleetOutcome is what a CreateFleet answer says.
type fleetOutcome struct {
	instance *launched
	// failed are the offerings that had no capacity.
	failed []offering
	// failures are every error of the answer, where it happened.
	failures []launchFailure
	// capacityOnly is true when every error was a capacity error.
	capacityOnly bool
	err          error
}

// launchFailure is one error of a CreateFleet answer: the capacity type and zone of its
// override (the zone empty when EC2 names none), and what EC2 said.
type launchFailure struct {
	capacityType, zone, said string
}

// readFleet interprets a CreateFleet answer. Capacity errors name the offerings to mark
// unavailable: the capacity type, type and zone of the failed override, or every override of the
// request when EC2 names none.
func readFleet(out *ec2.CreateFleetOutput, input *ec2.CreateFleetInput, subnetZones map[string]string) fleetOutcome {
	codes := capacityErrorCodes()
	outcome := fleetOutcome{capacityOnly: true}
	capacityType := string(input.TargetCapacitySpecification.DefaultTargetCapacityType)
	var errs []error
	seen := map[offering]bool{}
	for _, e := range out.Errors {
		code, msg := sdkaws.ToString(e.ErrorCode), sdkaws.ToString(e.ErrorMessage)
		said := fmt.Sprintf("%s: %s", code, msg)
		if deniedCodes[code] {
			// The fleet was allowed but a launch it makes for us was not (RunInstances, or
			// PassRole of the node role): the policy lacks it as surely as if the call failed.
			errs = append(errs, &PermissionError{Action: deniedAction(msg, "ec2:RunInstances"), Err: errors.New(said)})
		} else {
			errs = append(errs, errors.New(said))
		}
		ct := capacityType
		if e.Lifecycle != "" {
			ct = string(e.Lifecycle)
		}
		lto := e.LaunchTemplateAndOverrides
		named := lto != nil && lto.Overrides != nil && lto.Overrides.InstanceType != ""
		var zone string
		if named {
			zone = cmp.Or(sdkaws.ToString(lto.Overrides.AvailabilityZone), subnetZones[sdkaws.ToString(lto.Overrides.SubnetId)])
		}
		outcome.failures = append(outcome.failures, launchFailure{capacityType: ct, zone: zone, said: said})
		if !codes[code] {
			outcome.capacityOnly = false
			continue
		}
		var failed []offering
		if named {
			failed = append(failed, offering{ct, string(lto.Overrides.InstanceType), zone})
		} else {
			for _, cfg := range input.LaunchTemplateConfigs {
				for _, o := range cfg.Overrides {
					failed = append(failed, offering{ct, string(o.InstanceType), sdkaws.ToString(o.AvailabilityZone)})
				}
			}
		}
		for _, o := range failed {
			if o.zone != "" && !seen[o] {
				seen[o] = true
				outcome.failed = append(outcome.failed, o)
			}
		}
	}
	for _, inst := range out.Instances {
		if len(inst.InstanceIds) == 0 {
			continue
		}
		l := &launched{id: inst.InstanceIds[0], instanceType: string(inst.InstanceType), capacityType: capacityType}
		if inst.Lifecycle != "" {
			l.capacityType = string(inst.Lifecycle)
		}
		if lto := inst.LaunchTemplateAndOverrides; lto != nil && lto.Overrides != nil {
			l.zone = sdkaws.ToString(lto.Overrides.AvailabilityZone)
			l.subnetID = sdkaws.ToString(lto.Overrides.SubnetId)
			if l.instanceType == "" {
				l.instanceType = string(lto.Overrides.InstanceType)
			}
		}
		if l.subnetID == "" {
			l.subnetID = sdkaws.ToString(inst.SubnetId)
		}
		if l.zone == "" {
			l.zone = cmp.Or(sdkaws.ToString(inst.AvailabilityZone), subnetZones[l.subnetID])
		}
		outcome.instance = l
		break
	}
	if len(errs) == 0 {
		errs = append(errs, errors.New("EC2 returned neither an instance nor an error"))
		outcome.capacityOnly = false
	}
	outcome.err = errors.Join(errs...)
	return outcome
}
