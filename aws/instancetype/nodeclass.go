package instancetype

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// OptionsFor returns what an EC2NodeClass changes in every instance type's capacity and
// overhead: its kubelet settings and the volume that backs ephemeral storage.
func OptionsFor(nc *awsv1.EC2NodeClass) Options {
	var opts Options
	if k := nc.Spec.Kubelet; k != nil {
		opts.Kubelet = Kubelet{
			MaxPods:        k.MaxPods,
			PodsPerCore:    k.PodsPerCore,
			KubeReserved:   k.KubeReserved,
			SystemReserved: k.SystemReserved,
			EvictionHard:   k.EvictionHard,
			EvictionSoft:   k.EvictionSoft,
		}
	}
	opts.RootVolume = ephemeralVolume(nc)
	return opts
}

// ephemeralVolume is the size of the volume the kubelet keeps ephemeral storage on: the mapping
// marked rootVolume, else the family's usual device, else the family's default size.
func ephemeralVolume(nc *awsv1.EC2NodeClass) *resource.Quantity {
	family := nc.AMIFamily()
	device, size := "/dev/xvda", resource.MustParse("20Gi")
	switch {
	case family == awsv1.AMIFamilyBottlerocket:
		device = "/dev/xvdb" // Bottlerocket keeps containers on its data volume
	case awsv1.IsWindows(family):
		device, size = "/dev/sda1", resource.MustParse("50Gi")
	}
	var byDevice *resource.Quantity
	for _, m := range nc.Spec.BlockDeviceMappings {
		if m == nil || m.EBS == nil || m.EBS.VolumeSize == nil {
			continue
		}
		if m.RootVolume {
			return m.EBS.VolumeSize
		}
		if m.DeviceName != nil && strings.EqualFold(*m.DeviceName, device) {
			byDevice = m.EBS.VolumeSize
		}
	}
	if byDevice != nil {
		return byDevice
	}
	return &size
}
