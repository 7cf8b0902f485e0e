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

// Needs are what an EC2NodeClass's network and CPU settings ask of an instance type, as
// Karpenter's compatibility checks: nested virtualization, the Nitro hypervisor for connection
// tracking, enough network cards for its interfaces and enough EFA interfaces for its EFA-only
// ones.
type Needs struct {
	NestedVirtualization, Nitro bool
	NetworkCards, EFAInterfaces int64
}

// NeedsOf reads an EC2NodeClass's needs.
func NeedsOf(nc *awsv1.EC2NodeClass) Needs {
	var n Needs
	if nc == nil {
		return n
	}
	if o := nc.Spec.CPUOptions; o != nil && o.NestedVirtualization != nil && *o.NestedVirtualization == "enabled" {
		n.NestedVirtualization = true
	}
	n.Nitro = nc.Spec.ConnectionTracking != nil
	for _, ni := range nc.Spec.NetworkInterfaces {
		n.NetworkCards = max(n.NetworkCards, int64(ni.NetworkCardIndex)+1)
		if ni.InterfaceType == awsv1.InterfaceTypeEFAOnly {
			n.EFAInterfaces++
		}
	}
	return n
}

// Met reports whether a type can launch with these needs.
func (n Needs) Met(info Info) bool {
	return (!n.NestedVirtualization || info.NestedVirtualization) && (!n.Nitro || info.Hypervisor == "nitro") &&
		info.NetworkCards >= n.NetworkCards && info.EFAInterfaces >= n.EFAInterfaces
}
