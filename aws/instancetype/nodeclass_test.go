package instancetype

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func TestNodeClassOptions(t *testing.T) {
	gi := func(s string) *resource.Quantity { q := resource.MustParse(s); return &q }
	mapping := func(device string, size string, root bool) *awsv1.BlockDeviceMapping {
		return &awsv1.BlockDeviceMapping{DeviceName: ptr.To(device), EBS: &awsv1.BlockDevice{VolumeSize: gi(size)}, RootVolume: root}
	}
	tests := []struct {
		name       string
		spec       awsv1.EC2NodeClassSpec
		wantFamily string
		wantVolume string
	}{
		{"alias al2023 with a root device", awsv1.EC2NodeClassSpec{AMISelectorTerms: []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}},
			BlockDeviceMappings: []*awsv1.BlockDeviceMapping{mapping("/dev/xvda", "100Gi", false)}}, awsv1.AMIFamilyAL2023, "100Gi"},
		{"amiFamily wins, default size", awsv1.EC2NodeClassSpec{AMIFamily: ptr.To(awsv1.AMIFamilyAL2)}, awsv1.AMIFamilyAL2, "20Gi"},
		{"bottlerocket uses its data volume", awsv1.EC2NodeClassSpec{AMISelectorTerms: []awsv1.AMISelectorTerm{{Alias: "bottlerocket@latest"}},
			BlockDeviceMappings: []*awsv1.BlockDeviceMapping{mapping("/dev/xvda", "4Gi", false), mapping("/dev/xvdb", "60Gi", false)}}, awsv1.AMIFamilyBottlerocket, "60Gi"},
		{"rootVolume marks the device", awsv1.EC2NodeClassSpec{AMISelectorTerms: []awsv1.AMISelectorTerm{{ID: "ami-123"}},
			BlockDeviceMappings: []*awsv1.BlockDeviceMapping{mapping("/dev/sdz", "300Gi", true)}}, awsv1.AMIFamilyCustom, "300Gi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := &awsv1.EC2NodeClass{Spec: tt.spec}
			if got := nc.AMIFamily(); got != tt.wantFamily {
				t.Errorf("family %s, want %s", got, tt.wantFamily)
			}
			if got := OptionsFor(nc).RootVolume.String(); got != tt.wantVolume {
				t.Errorf("volume %s, want %s", got, tt.wantVolume)
			}
		})
	}
}

// TestNeeds: an EC2NodeClass's network and CPU settings leave out the types that cannot launch
// with them, as Karpenter's compatibility checks do.
func TestNeeds(t *testing.T) {
	enabled := "enabled"
	nitro := Info{Name: "m6i.large", Hypervisor: "nitro", NetworkCards: 1}
	efa := Info{Name: "p5.48xlarge", Hypervisor: "nitro", NetworkCards: 32, EFAInterfaces: 32, NestedVirtualization: true}
	xen := Info{Name: "m4.large", NetworkCards: 1}
	for _, tc := range []struct {
		name string
		spec func(*awsv1.EC2NodeClassSpec)
		want []string // the types that can launch
	}{
		{"no settings", func(*awsv1.EC2NodeClassSpec) {}, []string{"m6i.large", "p5.48xlarge", "m4.large"}},
		{"nested virtualization", func(s *awsv1.EC2NodeClassSpec) { s.CPUOptions = &awsv1.CPUOptions{NestedVirtualization: &enabled} }, []string{"p5.48xlarge"}},
		{"connection tracking needs Nitro", func(s *awsv1.EC2NodeClassSpec) { s.ConnectionTracking = &awsv1.ConnectionTracking{} }, []string{"m6i.large", "p5.48xlarge"}},
		{"EFA-only interfaces on a second card", func(s *awsv1.EC2NodeClassSpec) {
			s.NetworkInterfaces = []*awsv1.NetworkInterface{{InterfaceType: awsv1.InterfaceTypeInterface}, {NetworkCardIndex: 1, InterfaceType: awsv1.InterfaceTypeEFAOnly}}
		}, []string{"p5.48xlarge"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := &awsv1.EC2NodeClass{}
			tc.spec(&nc.Spec)
			var got []string
			for _, info := range []Info{nitro, efa, xen} {
				if NeedsOf(nc).Met(info) {
					got = append(got, info.Name)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("launchable %v, want %v", got, tc.want)
			}
		})
	}
}
