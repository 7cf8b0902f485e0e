package localcluster

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// InstanceIDLabel is set on every Node that RegisterNodes creates, to the instance's ID. RegisterNodes
// only ever deletes Nodes that carry it.
const InstanceIDLabel = "localcluster.nodepilot.dev/instance-id"

// UnregisteredTaintKey is the taint a Node registers with until the autoscaler registers it, as
// Karpenter's nodes do (effect NoExecute).
const UnregisteredTaintKey = "karpenter.sh/unregistered"

// Well-known node labels that RegisterNodes sets, as a kubelet on EC2 and Karpenter would.
const (
	labelHostname     = "kubernetes.io/hostname"
	labelInstanceType = "node.kubernetes.io/instance-type"
	labelZone         = "topology.kubernetes.io/zone"
	labelRegion       = "topology.kubernetes.io/region"
	labelCapacityType = "karpenter.sh/capacity-type"
	labelArch         = "kubernetes.io/arch"
	labelOS           = "kubernetes.io/os"
)

// NodeName returns the name of inst's Node: EC2's resource-based hostname, the instance ID followed
// by ".ec2.internal" in us-east-1 and by ".REGION.compute.internal" elsewhere (as in
// i-0123456789abcdef0.us-west-2.compute.internal). It is unique per instance, unlike a name made
// from a made-up IP address; with no Region it is the instance ID alone.
func NodeName(inst Instance) string {
	switch inst.Region {
	case "":
		return inst.ID
	case "us-east-1":
		return inst.ID + ".ec2.internal"
	default:
		return inst.ID + "." + inst.Region + ".compute.internal"
	}
}

// providerID returns inst.ProviderID, or aws:///ZONE/ID if it is empty.
func providerID(inst Instance) string {
	if inst.ProviderID != "" {
		return inst.ProviderID
	}
	return "aws:///" + inst.Zone + "/" + inst.ID
}

// nodeFor returns the Node that inst's kubelet would register: inst.Labels plus the well-known labels
// (each only if the instance has the value), the kwok label, InstanceIDLabel, the provider ID, the
// unregistered taint, the instance's capacity and where kwok serves its resource metrics. kwok then
// makes it Ready.
func nodeFor(inst Instance) *corev1.Node {
	name := NodeName(inst)
	labels := maps.Clone(inst.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	for key, value := range map[string]string{
		labelInstanceType: inst.InstanceType,
		labelZone:         inst.Zone,
		labelRegion:       inst.Region,
		labelCapacityType: inst.CapacityType,
		labelArch:         inst.Arch,
		labelOS:           inst.OS,
	} {
		if value != "" {
			labels[key] = value
		}
	}
	labels[labelHostname] = name
	labels[KwokNodeLabel] = KwokNodeValue
	labels[InstanceIDLabel] = inst.ID

	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
			Annotations: map[string]string{resourceMetricsPathAnnotation: resourceMetricsPath(name)}},
		Spec: corev1.NodeSpec{
			ProviderID: providerID(inst),
			Taints:     []corev1.Taint{{Key: UnregisteredTaintKey, Effect: corev1.TaintEffectNoExecute}},
		},
		Status: corev1.NodeStatus{
			Capacity:    inst.Capacity.DeepCopy(),
			Allocatable: inst.Allocatable.DeepCopy(),
			NodeInfo:    corev1.NodeSystemInfo{Architecture: inst.Arch, OperatingSystem: inst.OS},
		},
	}
}
