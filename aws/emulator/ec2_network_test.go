package emulator

import (
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestDescribeAvailabilityZones(t *testing.T) {
	_, _, c := startFake(t, Config{Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1f"}})
	tests := []struct {
		name string
		in   *ec2.DescribeAvailabilityZonesInput
		want []string
	}{
		{"all", &ec2.DescribeAvailabilityZonesInput{}, []string{"us-east-1a/use1-az4", "us-east-1b/use1-az6", "us-east-1c/use1-az1", "us-east-1f/use1-az5"}},
		{"by name", &ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-east-1b"}}, []string{"us-east-1b/use1-az6"}},
		{"by id", &ec2.DescribeAvailabilityZonesInput{ZoneIds: []string{"use1-az1"}}, []string{"us-east-1c/use1-az1"}},
		{"filter", &ec2.DescribeAvailabilityZonesInput{Filters: []types.Filter{{Name: aws.String("zone-name"), Values: []string{"*f"}}}}, []string{"us-east-1f/use1-az5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.ec2.DescribeAvailabilityZones(ctx(t), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, z := range out.AvailabilityZones {
				if z.State != types.AvailabilityZoneStateAvailable || *z.RegionName != "us-east-1" {
					t.Errorf("%s: state %s region %s", *z.ZoneName, z.State, *z.RegionName)
				}
				got = append(got, *z.ZoneName+"/"+*z.ZoneId)
			}
			if !equalStrings(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := c.ec2.DescribeAvailabilityZones(ctx(t), &ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-east-1z"}}); apiCode(err) != "InvalidParameterValue" {
		t.Errorf("unknown zone: %v", err)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDescribeSubnets(t *testing.T) {
	e, _, c := startFake(t, Config{ClusterName: "demo", FreeAddresses: 100})
	subnets := e.Subnets()
	if len(subnets) != 3 {
		t.Fatalf("%d subnets, want one per default zone", len(subnets))
	}
	tests := []struct {
		name    string
		filters []types.Filter
		ids     []string
		want    []string // zones
	}{
		{"discovery tag", []types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{"demo"}}}, nil, []string{"us-east-1a", "us-east-1b", "us-east-1c"}},
		{"discovery and network tags", []types.Filter{
			{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{"demo"}},
			{Name: aws.String("tag:network"), Values: []string{"private"}}}, nil, []string{"us-east-1a", "us-east-1b", "us-east-1c"}},
		{"other cluster", []types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{"my-eks"}}}, nil, nil},
		{"tag key", []types.Filter{{Name: aws.String("tag-key"), Values: []string{"network"}}}, nil, []string{"us-east-1a", "us-east-1b", "us-east-1c"}},
		{"tag value wildcard", []types.Filter{{Name: aws.String("tag:Name"), Values: []string{"demo-private-*b"}}}, nil, []string{"us-east-1b"}},
		{"zone", []types.Filter{{Name: aws.String("availability-zone"), Values: []string{"us-east-1c"}}}, nil, []string{"us-east-1c"}},
		{"subnet-id filter", []types.Filter{{Name: aws.String("subnet-id"), Values: []string{subnets[0].ID}}}, nil, []string{"us-east-1a"}},
		{"ids", nil, []string{subnets[1].ID, subnets[2].ID}, []string{"us-east-1b", "us-east-1c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.ec2.DescribeSubnets(ctx(t), &ec2.DescribeSubnetsInput{Filters: tt.filters, SubnetIds: tt.ids})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range out.Subnets {
				got = append(got, *s.AvailabilityZone)
				if *s.AvailableIpAddressCount != 100 || *s.VpcId == "" || *s.AvailabilityZoneId == "" || len(s.Tags) != 3 {
					t.Errorf("%s: %d free, vpc %q, zone id %q, tags %v", *s.SubnetId, *s.AvailableIpAddressCount, *s.VpcId, *s.AvailabilityZoneId, s.Tags)
				}
			}
			sort.Strings(got)
			if !equalStrings(got, tt.want) {
				t.Errorf("zones %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := c.ec2.DescribeSubnets(ctx(t), &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-0000000000000000f"}}); apiCode(err) != "InvalidSubnetID.NotFound" {
		t.Errorf("unknown subnet: %v", err)
	}
}

func TestDescribeSecurityGroups(t *testing.T) {
	_, _, c := startFake(t, Config{ClusterName: "demo"})
	all, err := c.ec2.DescribeSecurityGroups(ctx(t), &ec2.DescribeSecurityGroupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, g := range all.SecurityGroups {
		byName[*g.GroupName] = *g.GroupId
	}
	tests := []struct {
		name    string
		in      *ec2.DescribeSecurityGroupsInput
		want    []string
		errCode string
	}{
		{"discovery tag", &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{"demo"}}}}, []string{"demo-node"}, ""},
		{"cluster tag key", &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{{Name: aws.String("tag-key"), Values: []string{"kubernetes.io/cluster/demo"}}}}, []string{"eks-cluster-sg-demo"}, ""},
		{"group-name filter", &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{{Name: aws.String("group-name"), Values: []string{"default"}}}}, []string{"default"}, ""},
		{"group-id filter", &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{{Name: aws.String("group-id"), Values: []string{byName["demo-node"]}}}}, []string{"demo-node"}, ""},
		{"ids", &ec2.DescribeSecurityGroupsInput{GroupIds: []string{byName["default"], byName["demo-node"]}}, []string{"default", "demo-node"}, ""},
		{"names", &ec2.DescribeSecurityGroupsInput{GroupNames: []string{"eks-cluster-sg-demo"}}, []string{"eks-cluster-sg-demo"}, ""},
		{"unknown id", &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-0000000000000000f"}}, nil, "InvalidGroup.NotFound"},
		{"unknown filter", &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{{Name: aws.String("colour")}}}, nil, "InvalidParameterValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.ec2.DescribeSecurityGroups(ctx(t), tt.in)
			if failedAs(t, err, tt.errCode) {
				return
			}
			var got []string
			for _, g := range out.SecurityGroups {
				got = append(got, *g.GroupName)
			}
			sort.Strings(got)
			if !equalStrings(got, tt.want) {
				t.Errorf("groups %v, want %v", got, tt.want)
			}
		})
	}
}
