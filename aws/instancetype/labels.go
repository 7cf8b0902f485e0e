package instancetype

// Karpenter's AWS well-known labels that describe an instance type.
const (
	LabelInstanceCategory         = "karpenter.k8s.aws/instance-category"
	LabelInstanceFamily           = "karpenter.k8s.aws/instance-family"
	LabelInstanceGeneration       = "karpenter.k8s.aws/instance-generation"
	LabelInstanceSize             = "karpenter.k8s.aws/instance-size"
	LabelInstanceCPU              = "karpenter.k8s.aws/instance-cpu"
	LabelInstanceMemory           = "karpenter.k8s.aws/instance-memory"
	LabelInstanceGPUCount         = "karpenter.k8s.aws/instance-gpu-count"
	LabelInstanceGPUName          = "karpenter.k8s.aws/instance-gpu-name"
	LabelInstanceGPUManufacturer  = "karpenter.k8s.aws/instance-gpu-manufacturer"
	LabelInstanceGPUMemory        = "karpenter.k8s.aws/instance-gpu-memory"
	LabelInstanceNetworkBandwidth = "karpenter.k8s.aws/instance-network-bandwidth"
	LabelInstanceHypervisor       = "karpenter.k8s.aws/instance-hypervisor"
)
