package instancetype

import (
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
