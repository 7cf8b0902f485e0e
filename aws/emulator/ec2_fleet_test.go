package emulator

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	clocktesting "k8s.io/utils/clock/testing"
)

func (w *fleetWorld) fakeClock(*testing.T) *clocktesting.FakeClock { return w.fc }

// fleetWorld is an emulator with a launch template per architecture, as the provider makes them.
type fleetWorld struct {
	e       *Emulator
	fc      *clocktesting.FakeClock
	c       clients
	subnets []Subnet
	ltAMD   string
	ltARM   string
}

func newFleetWorld(t *testing.T, cfg Config) (*fleetWorld, func(time.Duration)) {
	t.Helper()
	e, fc, c := startFake(t, cfg)
	w := &fleetWorld{e: e, fc: fc, c: c, subnets: e.Subnets()}
	sg, err := c.ec2.DescribeSecurityGroups(ctx(t), &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{{Name: aws.String("tag-key"), Values: []string{"karpenter.sh/discovery"}}}})
	if err != nil || len(sg.SecurityGroups) != 1 {
		t.Fatalf("security group: %v", err)
	}
	for _, a := range []struct {
		arch string
		name *string
	}{{"x86_64", &w.ltAMD}, {"arm64", &w.ltARM}} {
		p, err := c.ssm.GetParameter(ctx(t), &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/" + a.arch + "/standard/recommended/image_id")})
		if err != nil {
			t.Fatal(err)
		}
		*a.name = "karpenter.k8s.aws/" + a.arch
		_, err = c.ec2.CreateLaunchTemplate(ctx(t), &ec2.CreateLaunchTemplateInput{
			LaunchTemplateName: a.name,
			LaunchTemplateData: &types.RequestLaunchTemplateData{
				ImageId: p.Parameter.Value, SecurityGroupIds: []string{*sg.SecurityGroups[0].GroupId},
				IamInstanceProfile: &types.LaunchTemplateIamInstanceProfileSpecificationRequest{Name: aws.String(defaultProfile)},
				MetadataOptions:    &types.LaunchTemplateInstanceMetadataOptionsRequest{HttpTokens: types.LaunchTemplateHttpTokensStateRequired, HttpPutResponseHopLimit: aws.Int32(1)},
				UserData:           aws.String("IyEvYmluL2Jhc2g="),
				TagSpecifications: []types.LaunchTemplateTagSpecificationRequest{{ResourceType: types.ResourceTypeInstance,
					Tags: []types.Tag{{Key: aws.String("from-template"), Value: aws.String("yes")}}}},
			},
			TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeLaunchTemplate,
				Tags: []types.Tag{{Key: aws.String("karpenter.k8s.aws/cluster"), Value: aws.String("my-cluster")}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return w, fc.Step
}

// overrides lists each type in each subnet, as the provider builds them.
func (w *fleetWorld) overrides(typeNames ...string) []types.FleetLaunchTemplateOverridesRequest {
	var out []types.FleetLaunchTemplateOverridesRequest
	for _, tn := range typeNames {
		for _, s := range w.subnets {
			out = append(out, types.FleetLaunchTemplateOverridesRequest{InstanceType: types.InstanceType(tn), SubnetId: aws.String(s.ID), AvailabilityZone: aws.String(s.Zone)})
		}
	}
	return out
}

func (w *fleetWorld) fleet(capacityType types.DefaultTargetCapacityType, lt string, token string, overrides []types.FleetLaunchTemplateOverridesRequest) *ec2.CreateFleetInput {
	in := &ec2.CreateFleetInput{
		Type: types.FleetTypeInstant,
		LaunchTemplateConfigs: []types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: aws.String(lt), Version: aws.String("$Latest")},
			Overrides:                   overrides,
		}},
		TargetCapacitySpecification: &types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(1), DefaultTargetCapacityType: capacityType},
		TagSpecifications: []types.TagSpecification{
			{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String("karpenter.sh/nodepool"), Value: aws.String("default")}, {Key: aws.String("Name"), Value: aws.String("node")}}},
			{ResourceType: types.ResourceTypeVolume, Tags: []types.Tag{{Key: aws.String("karpenter.sh/nodepool"), Value: aws.String("default")}}},
			{ResourceType: types.ResourceTypeFleet, Tags: []types.Tag{{Key: aws.String("karpenter.sh/nodepool"), Value: aws.String("default")}}},
		},
	}
	if token != "" {
		in.ClientToken = aws.String(token)
	}
	if capacityType == types.DefaultTargetCapacityTypeSpot {
		in.SpotOptions = &types.SpotOptionsRequest{AllocationStrategy: types.SpotAllocationStrategyPriceCapacityOptimized}
	} else {
		in.OnDemandOptions = &types.OnDemandOptionsRequest{AllocationStrategy: types.FleetOnDemandAllocationStrategyLowestPrice}
	}
	return in
}

// cheapest returns the type and zone of the cheapest pool among the overrides, by the
// emulator's own prices, and the sorted list of all (price, type/zone).
func (w *fleetWorld) pools(t *testing.T, capacityType string, typeNames ...string) []string {
	t.Helper()
	type pool struct {
		price float64
		key   string
	}
	var ps []pool
	for _, tn := range typeNames {
		for _, s := range w.subnets {
			var p float64
			if capacityType == capacitySpot {
				sp, ok := w.e.SpotPrice(tn, s.Zone)
				if !ok {
					continue
				}
				p = sp
			} else {
				w.e.mu.Lock()
				it := w.e.world.typeByName[tn]
				w.e.mu.Unlock()
				if !contains(it.Zones, s.Zone) {
					continue
				}
				p = it.OnDemandPrice
			}
			ps = append(ps, pool{p, tn + "/" + s.Zone})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].price < ps[j].price })
	var out []string
	for _, p := range ps {
		out = append(out, p.key)
	}
	return out
}

func TestCreateFleetLaunchesTheCheapestPool(t *testing.T) {
	w, _ := newFleetWorld(t, Config{BootDelay: 20 * time.Second})
	typeNames := []string{"m5.large", "m5a.large", "c5.large", "m6i.large"}
	for _, ct := range []types.DefaultTargetCapacityType{types.DefaultTargetCapacityTypeSpot, types.DefaultTargetCapacityTypeOnDemand} {
		t.Run(string(ct), func(t *testing.T) {
			out, err := w.c.ec2.CreateFleet(ctx(t), w.fleet(ct, w.ltAMD, "", w.overrides(typeNames...)))
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Errors) != 0 || len(out.Instances) != 1 || len(out.Instances[0].InstanceIds) != 1 {
				t.Fatalf("errors %v, instances %v", out.Errors, out.Instances)
			}
			got := out.Instances[0]
			want := w.pools(t, string(ct), typeNames...)[0]
			if key := string(got.InstanceType) + "/" + *got.LaunchTemplateAndOverrides.Overrides.AvailabilityZone; key != want {
				t.Errorf("launched %s, want the cheapest pool %s", key, want)
			}
			if string(got.Lifecycle) != string(ct) || *got.LaunchTemplateAndOverrides.Overrides.SubnetId == "" {
				t.Errorf("lifecycle %s subnet %v", got.Lifecycle, got.LaunchTemplateAndOverrides.Overrides.SubnetId)
			}
			d, err := w.c.ec2.DescribeInstances(ctx(t), &ec2.DescribeInstancesInput{InstanceIds: got.InstanceIds})
			if err != nil {
				t.Fatal(err)
			}
			inst := d.Reservations[0].Instances[0]
			tags := map[string]string{}
			for _, tg := range inst.Tags {
				tags[*tg.Key] = *tg.Value
			}
			for k, v := range map[string]string{"karpenter.sh/nodepool": "default", "Name": "node", "from-template": "yes", "aws:ec2:fleet-id": *out.FleetId} {
				if tags[k] != v {
					t.Errorf("tag %s = %q, want %q (tags %v)", k, tags[k], v, tags)
				}
			}
			if inst.State.Name != types.InstanceStateNamePending || *inst.PrivateDnsName == "" || *inst.PrivateIpAddress == "" ||
				*inst.IamInstanceProfile.Arn == "" || inst.MetadataOptions.HttpTokens != types.HttpTokensStateRequired {
				t.Errorf("instance state %s dns %q ip %q profile %v tokens %s", inst.State.Name, *inst.PrivateDnsName, *inst.PrivateIpAddress, inst.IamInstanceProfile, inst.MetadataOptions.HttpTokens)
			}
			if spot := inst.InstanceLifecycle == types.InstanceLifecycleTypeSpot; spot != (ct == types.DefaultTargetCapacityTypeSpot) {
				t.Errorf("instance lifecycle %q for %s", inst.InstanceLifecycle, ct)
			}
		})
	}
}

func TestCreateFleetCapacityErrors(t *testing.T) {
	typeNames := []string{"m5.large", "m5a.large", "c5.large"}
	tests := []struct {
		name         string
		capacityType types.DefaultTargetCapacityType
		faults       func(cheapest []string) []CapacityFault
		freeZero     bool
		wantCodes    []string // error codes, in order
		wantLaunch   int      // index into the pools of the launched one, -1 for none
	}{
		{
			name: "cheapest spot pool has no capacity", capacityType: types.DefaultTargetCapacityTypeSpot,
			faults: func(p []string) []CapacityFault {
				tn, z, _ := strings.Cut(p[0], "/")
				return []CapacityFault{{InstanceType: tn, Zone: z, CapacityType: "spot"}}
			},
			wantCodes: []string{"InsufficientInstanceCapacity"}, wantLaunch: 1,
		},
		{
			name: "two cheapest on-demand pools fail", capacityType: types.DefaultTargetCapacityTypeOnDemand,
			faults: func(p []string) []CapacityFault {
				a, az, _ := strings.Cut(p[0], "/")
				b, bz, _ := strings.Cut(p[1], "/")
				return []CapacityFault{{InstanceType: a, Zone: az, Code: "InsufficientInstanceCapacity"}, {InstanceType: b, Zone: bz, Code: "UnfulfillableCapacity"}}
			},
			wantCodes: []string{"InsufficientInstanceCapacity", "UnfulfillableCapacity"}, wantLaunch: 2,
		},
		{
			name: "spot limit reached", capacityType: types.DefaultTargetCapacityTypeSpot,
			faults: func([]string) []CapacityFault {
				return []CapacityFault{{CapacityType: "spot", Code: "MaxSpotInstanceCountExceeded"}}
			},
			wantCodes: repeat("MaxSpotInstanceCountExceeded", 9), wantLaunch: -1,
		},
		{
			name: "vCPU limit for on-demand only", capacityType: types.DefaultTargetCapacityTypeOnDemand,
			faults: func([]string) []CapacityFault {
				return []CapacityFault{{CapacityType: "on-demand", Code: "VcpuLimitExceeded"}, {CapacityType: "spot"}}
			},
			wantCodes: repeat("VcpuLimitExceeded", 9), wantLaunch: -1,
		},
		{
			name: "spot limit does not touch on-demand", capacityType: types.DefaultTargetCapacityTypeOnDemand,
			faults: func([]string) []CapacityFault {
				return []CapacityFault{{CapacityType: "spot", Code: "MaxSpotInstanceCountExceeded"}}
			},
			wantCodes: nil, wantLaunch: 0,
		},
		{
			name: "a one-shot fault clears after one attempt", capacityType: types.DefaultTargetCapacityTypeSpot,
			faults:    func([]string) []CapacityFault { return []CapacityFault{{InstanceType: "*.large", Count: 1}} },
			wantCodes: []string{"InsufficientInstanceCapacity"}, wantLaunch: 1,
		},
		{
			name: "no free addresses anywhere", capacityType: types.DefaultTargetCapacityTypeSpot, freeZero: true,
			faults: func([]string) []CapacityFault { return nil }, wantCodes: repeat("InsufficientFreeAddressesInSubnet", 9), wantLaunch: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := newFleetWorld(t, Config{})
			pools := w.pools(t, string(tt.capacityType), typeNames...)
			if len(pools) != 9 {
				t.Fatalf("%d pools, want 9", len(pools))
			}
			for _, f := range tt.faults(pools) {
				if err := w.e.InjectCapacityError(f); err != nil {
					t.Fatal(err)
				}
			}
			if tt.freeZero {
				for _, s := range w.subnets {
					if err := w.e.SetFreeAddresses(s.ID, 0); err != nil {
						t.Fatal(err)
					}
				}
			}
			out, err := w.c.ec2.CreateFleet(ctx(t), w.fleet(tt.capacityType, w.ltAMD, "", w.overrides(typeNames...)))
			if err != nil {
				t.Fatal(err)
			}
			var codes []string
			for i, fe := range out.Errors {
				codes = append(codes, *fe.ErrorCode)
				o := fe.LaunchTemplateAndOverrides.Overrides
				if key := string(o.InstanceType) + "/" + *o.AvailabilityZone; key != pools[i] {
					t.Errorf("error %d is for %s, want the pool tried %d-th, %s", i, key, i+1, pools[i])
				}
				if string(fe.Lifecycle) != string(tt.capacityType) || *fe.ErrorMessage == "" || *o.SubnetId == "" ||
					*fe.LaunchTemplateAndOverrides.LaunchTemplateSpecification.LaunchTemplateId == "" {
					t.Errorf("error %d: lifecycle %s message %q override %+v", i, fe.Lifecycle, *fe.ErrorMessage, o)
				}
			}
			if !equalStrings(codes, tt.wantCodes) {
				t.Errorf("error codes %v, want %v", codes, tt.wantCodes)
			}
			if tt.wantLaunch < 0 {
				if len(out.Instances) != 0 {
					t.Errorf("launched %v, want nothing", out.Instances)
				}
				if n := len(w.e.Instances()); n != 0 {
					t.Errorf("%d instances exist, want none", n)
				}
				return
			}
			if len(out.Instances) != 1 {
				t.Fatalf("instances %v, want one", out.Instances)
			}
			got := out.Instances[0]
			if key := string(got.InstanceType) + "/" + *got.LaunchTemplateAndOverrides.Overrides.AvailabilityZone; key != pools[tt.wantLaunch] {
				t.Errorf("launched %s, want %s", key, pools[tt.wantLaunch])
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestCreateFleetClientTokenIsIdempotent(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	in := w.fleet(types.DefaultTargetCapacityTypeSpot, w.ltAMD, "nodeclaim-default-abcde", w.overrides("m5.large", "c5.large"))
	first, err := w.c.ec2.CreateFleet(ctx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := w.c.ec2.CreateFleet(ctx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	if *first.FleetId != *second.FleetId || first.Instances[0].InstanceIds[0] != second.Instances[0].InstanceIds[0] {
		t.Errorf("second call: fleet %s instance %v, want the first's %s %v", *second.FleetId, second.Instances[0].InstanceIds, *first.FleetId, first.Instances[0].InstanceIds)
	}
	if n := len(w.e.Instances()); n != 1 {
		t.Errorf("%d instances after two calls with one token, want 1", n)
	}
	in.TargetCapacitySpecification.DefaultTargetCapacityType = types.DefaultTargetCapacityTypeOnDemand
	in.SpotOptions = nil
	if _, err := w.c.ec2.CreateFleet(ctx(t), in); apiCode(err) != "IdempotentParameterMismatch" {
		t.Errorf("same token, other parameters: %v, want IdempotentParameterMismatch", err)
	}
	// A failed launch is remembered too: the same token gives the same errors and launches nothing.
	if err := w.e.InjectCapacityError(CapacityFault{}); err != nil {
		t.Fatal(err)
	}
	in2 := w.fleet(types.DefaultTargetCapacityTypeSpot, w.ltAMD, "nodeclaim-default-fghij", w.overrides("m5.large"))
	a, err := w.c.ec2.CreateFleet(ctx(t), in2)
	if err != nil || len(a.Instances) != 0 || len(a.Errors) != 3 {
		t.Fatalf("launch under a fault: %v, %d instances, %d errors", err, len(a.Instances), len(a.Errors))
	}
	w.e.ClearFaults()
	b, err := w.c.ec2.CreateFleet(ctx(t), in2)
	if err != nil || len(b.Instances) != 0 || len(b.Errors) != 3 {
		t.Errorf("repeat after the fault cleared: %v, %d instances, %d errors; want the recorded answer", err, len(b.Instances), len(b.Errors))
	}
}

func TestCreateFleetRequestErrors(t *testing.T) {
	w, _ := newFleetWorld(t, Config{Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1e"}})
	// a type offered in some configured zones but not in us-east-1e
	var notInE string
	w.e.mu.Lock()
	for _, it := range w.e.world.types {
		if it.Arch == "amd64" && len(it.Zones) > 0 && !contains(it.Zones, "us-east-1e") {
			notInE = it.Name
			break
		}
	}
	w.e.mu.Unlock()
	var subnetE string
	for _, s := range w.subnets {
		if s.Zone == "us-east-1e" {
			subnetE = s.ID
		}
	}
	one := func(tn, subnet string) []types.FleetLaunchTemplateOverridesRequest {
		return []types.FleetLaunchTemplateOverridesRequest{{InstanceType: types.InstanceType(tn), SubnetId: aws.String(subnet)}}
	}
	tests := []struct {
		name      string
		in        *ec2.CreateFleetInput
		topCode   string
		fleetCode string
	}{
		{"unknown launch template", w.fleet(types.DefaultTargetCapacityTypeSpot, "nope", "", w.overrides("m5.large")), "InvalidLaunchTemplateName.NotFoundException", ""},
		{"arm64 type with an x86 AMI", w.fleet(types.DefaultTargetCapacityTypeSpot, w.ltAMD, "", one("m6g.large", w.subnets[0].ID)), "", "InvalidParameterValue"},
		{"type not offered in the zone", w.fleet(types.DefaultTargetCapacityTypeOnDemand, w.ltAMD, "", one(notInE, subnetE)), "", "Unsupported"},
		{"unknown subnet", w.fleet(types.DefaultTargetCapacityTypeOnDemand, w.ltAMD, "", one("m5.large", "subnet-0000000000000000f")), "", "InvalidSubnetID.NotFound"},
	}
	maintain := w.fleet(types.DefaultTargetCapacityTypeSpot, w.ltAMD, "", w.overrides("m5.large"))
	maintain.Type = types.FleetTypeMaintain
	tests = append(tests, struct {
		name      string
		in        *ec2.CreateFleetInput
		topCode   string
		fleetCode string
	}{"maintain fleets", maintain, "InvalidParameterValue", ""})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.c.ec2.CreateFleet(ctx(t), tt.in)
			if failedAs(t, err, tt.topCode) {
				return
			}
			if len(out.Instances) != 0 || len(out.Errors) != 1 || *out.Errors[0].ErrorCode != tt.fleetCode {
				t.Fatalf("instances %v errors %v, want one %s", out.Instances, out.Errors, tt.fleetCode)
			}
		})
	}
}

func TestCreateFleetPrioritizedAndCapacitySplit(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	ov := []types.FleetLaunchTemplateOverridesRequest{
		{InstanceType: "m5.large", SubnetId: aws.String(w.subnets[0].ID), Priority: aws.Float64(2)},
		{InstanceType: "m5.2xlarge", SubnetId: aws.String(w.subnets[1].ID), Priority: aws.Float64(1)},
	}
	in := w.fleet(types.DefaultTargetCapacityTypeOnDemand, w.ltAMD, "", ov)
	in.OnDemandOptions.AllocationStrategy = types.FleetOnDemandAllocationStrategyPrioritized
	in.TargetCapacitySpecification.TotalTargetCapacity = aws.Int32(3)
	in.TargetCapacitySpecification.SpotTargetCapacity = aws.Int32(1)
	in.SpotOptions = &types.SpotOptionsRequest{AllocationStrategy: types.SpotAllocationStrategyLowestPrice}
	out, err := w.c.ec2.CreateFleet(ctx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, fi := range out.Instances {
		got[string(fi.Lifecycle)+":"+string(fi.InstanceType)] += len(fi.InstanceIds)
	}
	want := map[string]int{"on-demand:m5.2xlarge": 2, "spot:m5.large": 1}
	if len(got) != len(want) || got["on-demand:m5.2xlarge"] != 2 || got["spot:m5.large"] != 1 {
		t.Errorf("launched %v, want %v (on-demand by priority, spot by price)", got, want)
	}
}
