package aws

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

// testType builds an amd64 type with 4 vCPUs and 16 GiB whose offerings are given as
// "capacity-type/zone" → price; a negative price makes the offering unavailable.
func testType(name string, offerings map[string]float64) *cloudprovider.InstanceType {
	var ofs cloudprovider.Offerings
	for _, k := range slices.Sorted(maps.Keys(offerings)) {
		var ct, zone string
		fmt.Sscanf(k, "%s %s", &ct, &zone)
		p := offerings[k]
		ofs = append(ofs, cloudprovider.Offering{CapacityType: ct, Zone: zone, Price: max(p, 0), Available: p >= 0})
	}
	info := instancetype.Info{Name: name, Family: "m5", Category: "m", Generation: 5, Size: "xlarge", Arch: "amd64",
		VCPUs: 4, MemoryMiB: 16384, MaxPodsENI: 58, Hypervisor: "nitro"}
	return instancetype.New(info, ofs, instancetype.Options{})
}

func TestPlanLaunch(t *testing.T) {
	types := []*cloudprovider.InstanceType{
		testType("a.xlarge", map[string]float64{"spot z1": 0.05, "spot z2": 0.04, "on-demand z1": 0.2, "on-demand z2": 0.2}),
		testType("b.xlarge", map[string]float64{"spot z1": -1, "on-demand z1": 0.1}),
		testType("c.xlarge", map[string]float64{"spot z3": 0.01, "on-demand z3": 0.05}),
	}
	zones := []string{"z1", "z2"}
	tests := []struct {
		name     string
		reqs     requirements.Requirements
		requests corev1.ResourceList
		wantCT   string
		want     []string // type:zones, cheapest first
		wantOK   bool
	}{
		{"spot preferred when allowed", requirements.Requirements{}, nil, karpv1.CapacityTypeSpot, []string{"a.xlarge:[z1 z2]"}, true},
		{"on-demand when spot excluded", requirements.Of(requirements.New(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeOnDemand)),
			nil, karpv1.CapacityTypeOnDemand, []string{"b.xlarge:[z1]", "a.xlarge:[z1 z2]"}, true},
		{"zone requirement", requirements.Of(requirements.New(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "z1")),
			nil, karpv1.CapacityTypeSpot, []string{"a.xlarge:[z1]"}, true},
		{"no spot left falls back to on-demand", requirements.Of(requirements.New(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, "b.xlarge")),
			nil, karpv1.CapacityTypeOnDemand, []string{"b.xlarge:[z1]"}, true},
		{"too big", requirements.Requirements{}, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5")}, "", nil, false},
		{"only in a zone without subnet", requirements.Of(requirements.New(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, "c.xlarge")),
			nil, "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, ok := planLaunch(tt.reqs, tt.requests, types, zones)
			if ok != tt.wantOK {
				t.Fatalf("ok %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			var got []string
			for _, c := range plan.choices {
				got = append(got, fmt.Sprintf("%s:%v", c.it.Name, c.zones))
			}
			if plan.capacityType != tt.wantCT || !slices.Equal(got, tt.want) {
				t.Errorf("plan %s %v, want %s %v", plan.capacityType, got, tt.wantCT, tt.want)
			}
		})
	}
}

func TestPlanLaunchKeepsTheCheapestSixty(t *testing.T) {
	var types []*cloudprovider.InstanceType
	for i := range 100 {
		types = append(types, testType(fmt.Sprintf("t%03d.xlarge", i), map[string]float64{"on-demand z1": float64(100-i) / 100}))
	}
	plan, ok := planLaunch(requirements.Requirements{}, nil, types, []string{"z1"})
	if !ok || len(plan.choices) != MaxFleetInstanceTypes {
		t.Fatalf("ok %v, %d choices, want %d", ok, len(plan.choices), MaxFleetInstanceTypes)
	}
	if first, last := plan.choices[0].it.Name, plan.choices[59].it.Name; first != "t099.xlarge" || last != "t040.xlarge" {
		t.Errorf("choices from %s to %s, want t099 (cheapest) to t040", first, last)
	}
}

func TestFleetInput(t *testing.T) {
	plan := launchPlan{capacityType: karpv1.CapacityTypeSpot, choices: []fleetChoice{
		{it: &cloudprovider.InstanceType{Name: "a.large"}, arch: "amd64", zones: []string{"z1", "z2"}},
		{it: &cloudprovider.InstanceType{Name: "g.large"}, arch: "arm64", zones: []string{"z1"}},
	}}
	subnets := map[string]subnet{"z1": {ID: "subnet-1", Zone: "z1"}, "z2": {ID: "subnet-2", Zone: "z2"}}
	in := fleetInput(plan, map[string]string{"amd64": "lt-amd", "arm64": "lt-arm"}, subnets, "token", map[string]string{"k": "v"}, nil)
	if in.Type != ec2types.FleetTypeInstant || *in.TargetCapacitySpecification.TotalTargetCapacity != 1 ||
		in.TargetCapacitySpecification.DefaultTargetCapacityType != ec2types.DefaultTargetCapacityTypeSpot {
		t.Errorf("fleet %v %+v, want instant, capacity 1 spot", in.Type, in.TargetCapacitySpecification)
	}
	if in.SpotOptions == nil || in.SpotOptions.AllocationStrategy != ec2types.SpotAllocationStrategyPriceCapacityOptimized || in.OnDemandOptions != nil {
		t.Errorf("spot options %+v on-demand options %+v, want price-capacity-optimized only", in.SpotOptions, in.OnDemandOptions)
	}
	var got []string
	for _, cfg := range in.LaunchTemplateConfigs {
		for _, o := range cfg.Overrides {
			got = append(got, fmt.Sprintf("%s/%s/%s/%s", *cfg.LaunchTemplateSpecification.LaunchTemplateName, o.InstanceType, *o.SubnetId, *o.AvailabilityZone))
		}
	}
	want := []string{"lt-amd/a.large/subnet-1/z1", "lt-amd/a.large/subnet-2/z2", "lt-arm/g.large/subnet-1/z1"}
	if !slices.Equal(got, want) {
		t.Errorf("overrides %v, want %v", got, want)
	}
	if *in.ClientToken != "token" || len(in.TagSpecifications) != 5 {
		t.Errorf("client token %q, %d tag specifications", *in.ClientToken, len(in.TagSpecifications))
	}
	plan.capacityType = karpv1.CapacityTypeOnDemand
	in = fleetInput(plan, map[string]string{"amd64": "lt-amd"}, subnets, "token", nil, nil)
	if in.OnDemandOptions == nil || in.OnDemandOptions.AllocationStrategy != ec2types.FleetOnDemandAllocationStrategyLowestPrice || in.SpotOptions != nil {
		t.Errorf("on-demand options %+v spot options %+v, want lowest-price only", in.OnDemandOptions, in.SpotOptions)
	}
}

func TestReadFleet(t *testing.T) {
	input := &ec2.CreateFleetInput{
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{DefaultTargetCapacityType: ec2types.DefaultTargetCapacityTypeSpot},
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{Overrides: []ec2types.FleetLaunchTemplateOverridesRequest{
			{InstanceType: "a.large", SubnetId: sdkaws.String("subnet-1"), AvailabilityZone: sdkaws.String("z1")},
			{InstanceType: "b.large", SubnetId: sdkaws.String("subnet-2"), AvailabilityZone: sdkaws.String("z2")},
		}}},
	}
	fleetErr := func(code, it, subnet string) ec2types.CreateFleetError {
		e := ec2types.CreateFleetError{ErrorCode: sdkaws.String(code), ErrorMessage: sdkaws.String("no")}
		if it != "" {
			e.LaunchTemplateAndOverrides = &ec2types.LaunchTemplateAndOverridesResponse{Overrides: &ec2types.FleetLaunchTemplateOverrides{
				InstanceType: ec2types.InstanceType(it), SubnetId: sdkaws.String(subnet)}}
		}
		return e
	}
	subnetZones := map[string]string{"subnet-1": "z1", "subnet-2": "z2"}
	tests := []struct {
		name         string
		out          *ec2.CreateFleetOutput
		wantInstance string
		wantFailed   []string
		capacityOnly bool
		// wantFailures are the errors where they happened, in Karpenter's reasons.
		wantFailures []string
	}{
		{"launched after a capacity error", &ec2.CreateFleetOutput{
			Errors: []ec2types.CreateFleetError{fleetErr("InsufficientInstanceCapacity", "a.large", "subnet-1")},
			Instances: []ec2types.CreateFleetInstance{{InstanceIds: []string{"i-1"}, InstanceType: "b.large", Lifecycle: ec2types.InstanceLifecycleSpot,
				LaunchTemplateAndOverrides: &ec2types.LaunchTemplateAndOverridesResponse{Overrides: &ec2types.FleetLaunchTemplateOverrides{
					SubnetId: sdkaws.String("subnet-2"), AvailabilityZone: sdkaws.String("z2")}}}},
		}, "i-1 b.large z2 subnet-2 spot", []string{"spot:a.large:z1"}, true, []string{"spot z1 LaunchFailed"}},
		{"account limit names no override", &ec2.CreateFleetOutput{
			Errors: []ec2types.CreateFleetError{fleetErr("MaxSpotInstanceCountExceeded", "", "")},
		}, "", []string{"spot:a.large:z1", "spot:b.large:z2"}, true, []string{"spot  SpotQuotaExceeded"}},
		{"other error", &ec2.CreateFleetOutput{
			Errors: []ec2types.CreateFleetError{fleetErr("InvalidLaunchTemplateId.NotFound", "a.large", "subnet-1")},
		}, "", nil, false, []string{"spot z1 LaunchTemplateNotFound"}},
		{"nothing at all", &ec2.CreateFleetOutput{}, "", nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := readFleet(tt.out, input, subnetZones)
			got := ""
			if o.instance != nil {
				got = fmt.Sprintf("%s %s %s %s %s", o.instance.id, o.instance.instanceType, o.instance.zone, o.instance.subnetID, o.instance.capacityType)
			}
			var failed []string
			for _, f := range o.failed {
				failed = append(failed, f.String())
			}
			if got != tt.wantInstance || !slices.Equal(failed, tt.wantFailed) || (o.instance == nil && o.capacityOnly != tt.capacityOnly) {
				t.Errorf("instance %q failed %v capacityOnly %v, want %q %v %v", got, failed, o.capacityOnly, tt.wantInstance, tt.wantFailed, tt.capacityOnly)
			}
			var failures []string
			for _, f := range o.failures {
				failures = append(failures, f.capacityType+" "+f.zone+" "+launchReason(f.said))
			}
			if !slices.Equal(failures, tt.wantFailures) {
				t.Errorf("failures %q, want %q", failures, tt.wantFailures)
			}
		})
	}
}

// TestLaunchReasonIsKarpenters: every launch failure in the fidelity corpus gets the reason
// Karpenter's own function gives it.
func TestLaunchReasonIsKarpenters(t *testing.T) {
	facts := upstream.Load(t)
	if len(facts.LaunchReasons) == 0 {
		t.Fatal("no launch reasons in Karpenter's facts: rebuild them with hack/build-fidelity.sh")
	}
	for _, r := range facts.LaunchReasons {
		if got := launchReason(r.Said); got != r.Reason {
			t.Errorf("launchReason(%q) = %s, Karpenter %s says %s", r.Said, got, facts.Version, r.Reason)
		}
	}
}

func TestClientToken(t *testing.T) {
	a, b := &karpv1.NodeClaim{}, &karpv1.NodeClaim{}
	a.Name, a.UID = "default-abc", "uid-1"
	b.Name, b.UID = "default-abc", "uid-2"
	if ClientToken(a) != ClientToken(a.DeepCopy()) {
		t.Error("the token of one NodeClaim changes")
	}
	if ClientToken(a) == ClientToken(b) {
		t.Error("a recreated NodeClaim (new UID) has the old token")
	}
	if n := len(ClientToken(a)); n > 64 {
		t.Errorf("token of %d characters; EC2 takes at most 64", n)
	}
}
