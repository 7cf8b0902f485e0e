package aws

import (
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// TestTemplateData: the EC2NodeClass's tenancy, network and CPU settings reach the launch
// template as Karpenter writes them; without them the template keeps EC2's defaults.
func TestTemplateData(t *testing.T) {
	groups := []string{"sg-1"}
	tracking := &awsv1.ConnectionTracking{TCPEstablishedTimeout: sdkaws.Int32(600)}
	efa := []*awsv1.NetworkInterface{{InterfaceType: awsv1.InterfaceTypeInterface}, {NetworkCardIndex: 1, InterfaceType: awsv1.InterfaceTypeEFAOnly}}
	type iface struct {
		card, prefixes int32
		kind           string
		public, track  bool
	}
	for _, tc := range []struct {
		name       string
		cfg        launchConfig
		interfaces []iface // nil: the groups are the template's
		nested     string
		tenancy    string
	}{
		{name: "defaults", cfg: launchConfig{}},
		{name: "public address", cfg: launchConfig{AssociatePublicIP: sdkaws.Bool(true)}, interfaces: []iface{{public: true}}},
		{name: "prefixes and connection tracking", cfg: launchConfig{IPPrefixCount: sdkaws.Int32(2), ConnectionTracking: tracking},
			interfaces: []iface{{prefixes: 2, track: true}}},
		{name: "EFA interfaces", cfg: launchConfig{NetworkInterfaces: efa, IPPrefixCount: sdkaws.Int32(1), AssociatePublicIP: sdkaws.Bool(true), ConnectionTracking: tracking},
			interfaces: []iface{{kind: "interface", prefixes: 1, public: true, track: true}, {card: 1, kind: "efa-only"}}},
		{name: "nested virtualization and dedicated tenancy", cfg: launchConfig{NestedVirtualization: "enabled", Tenancy: "dedicated"},
			nested: "enabled", tenancy: "dedicated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.ImageID, tc.cfg.SecurityGroups = "ami-1", groups
			data := tc.cfg.templateData()
			if (tc.interfaces == nil) != (len(data.SecurityGroupIds) == 1) || len(data.NetworkInterfaces) != len(tc.interfaces) {
				t.Fatalf("groups %v, %d interfaces; want %d interfaces (groups on the template when none)", data.SecurityGroupIds, len(data.NetworkInterfaces), len(tc.interfaces))
			}
			for i, want := range tc.interfaces {
				got := data.NetworkInterfaces[i]
				if sdkaws.ToInt32(got.NetworkCardIndex) != want.card || sdkaws.ToInt32(got.Ipv4PrefixCount) != want.prefixes || sdkaws.ToString(got.InterfaceType) != want.kind ||
					sdkaws.ToBool(got.AssociatePublicIpAddress) != want.public || (got.ConnectionTrackingSpecification != nil) != want.track || len(got.Groups) != 1 {
					t.Errorf("interface %d: %+v, want %+v", i, got, want)
				}
			}
			nested := ""
			if data.CpuOptions != nil {
				nested = string(data.CpuOptions.NestedVirtualization)
			}
			var tenancy ec2types.Tenancy
			if data.Placement != nil {
				tenancy = data.Placement.Tenancy
			}
			if nested != tc.nested || string(tenancy) != tc.tenancy {
				t.Errorf("nested virtualization %q, tenancy %q; want %q, %q", nested, tenancy, tc.nested, tc.tenancy)
			}
		})
	}
}
