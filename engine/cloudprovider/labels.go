package cloudprovider

// The labels the engine reads directly. The full set of Karpenter's well-known labels lives with
// the API types; these few are the ones offerings and topology are keyed by.
const (
	LabelZone         = "topology.kubernetes.io/zone"
	LabelRegion       = "topology.kubernetes.io/region"
	LabelCapacityType = "karpenter.sh/capacity-type"
	LabelInstanceType = "node.kubernetes.io/instance-type"
	LabelArch         = "kubernetes.io/arch"
	LabelOS           = "kubernetes.io/os"
	LabelHostname     = "kubernetes.io/hostname"
	LabelNodePool     = "karpenter.sh/nodepool"
)
