package v1

import "k8s.io/apimachinery/pkg/util/sets"

// Well-known node labels of the AWS provider, set from the instance type and offering.
const (
	LabelInstanceCategory                     = Group + "/instance-category"
	LabelInstanceFamily                       = Group + "/instance-family"
	LabelInstanceGeneration                   = Group + "/instance-generation"
	LabelInstanceSize                         = Group + "/instance-size"
	LabelInstanceCPU                          = Group + "/instance-cpu"
	LabelInstanceCPUManufacturer              = Group + "/instance-cpu-manufacturer"
	LabelInstanceCPUSustainedClockSpeedMhz    = Group + "/instance-cpu-sustained-clock-speed-mhz"
	LabelInstanceMemory                       = Group + "/instance-memory"
	LabelInstanceGPUCount                     = Group + "/instance-gpu-count"
	LabelInstanceGPUName                      = Group + "/instance-gpu-name"
	LabelInstanceGPUManufacturer              = Group + "/instance-gpu-manufacturer"
	LabelInstanceGPUMemory                    = Group + "/instance-gpu-memory"
	LabelInstanceAcceleratorName              = Group + "/instance-accelerator-name"
	LabelInstanceAcceleratorManufacturer      = Group + "/instance-accelerator-manufacturer"
	LabelInstanceAcceleratorCount             = Group + "/instance-accelerator-count"
	LabelInstanceNetworkBandwidth             = Group + "/instance-network-bandwidth"
	LabelInstanceEBSBandwidth                 = Group + "/instance-ebs-bandwidth"
	LabelInstanceHypervisor                   = Group + "/instance-hypervisor"
	LabelInstanceEncryptionInTransitSupported = Group + "/instance-encryption-in-transit-supported"
	LabelInstanceLocalNVME                    = Group + "/instance-local-nvme"
	LabelInstanceCapabilityFlex               = Group + "/instance-capability-flex"
	LabelInstanceTenancy                      = Group + "/instance-tenancy"
	LabelCapacityReservationID                = Group + "/capacity-reservation-id"
	LabelCapacityReservationType              = Group + "/capacity-reservation-type"
	LabelCapacityReservationInterruptible     = Group + "/capacity-reservation-interruptible"
	LabelPlacementGroupID                     = Group + "/placement-group-id"
	LabelPlacementGroupPartition              = Group + "/placement-group-partition"
	// LabelNodeClass names the EC2NodeClass of a node.
	LabelNodeClass = Group + "/ec2nodeclass"
	// LabelTopologyZoneID is the availability zone id of a node.
	LabelTopologyZoneID = "topology.k8s.aws/zone-id"
)

// Annotations of the AWS provider.
const (
	// AnnotationEC2NodeClassHash holds Hash of the EC2NodeClass a NodeClaim launched with.
	AnnotationEC2NodeClassHash = Group + "/ec2nodeclass-hash"
	// AnnotationEC2NodeClassHashVersion holds the version of the hash scheme
	// (EC2NodeClassHashVersion).
	AnnotationEC2NodeClassHashVersion = Group + "/ec2nodeclass-hash-version"
	// AnnotationInstanceProfile holds the instance profile a NodeClaim launched with.
	AnnotationInstanceProfile = Group + "/instance-profile-name"
)

// TerminationFinalizer holds an EC2NodeClass until its instance profile is cleaned up.
const TerminationFinalizer = Group + "/termination"

// Tag keys the provider puts on EC2 resources, which an EC2NodeClass may not set.
const (
	TagKeyEKSClusterName = "eks:eks-cluster-name"
	TagKeyNodePool       = "karpenter.sh/nodepool"
	TagKeyNodeClaim      = "karpenter.sh/nodeclaim"
	TagKeyNodeClass      = LabelNodeClass
)

// AMI families.
const (
	AMIFamilyAL2          = "AL2"
	AMIFamilyAL2023       = "AL2023"
	AMIFamilyBottlerocket = "Bottlerocket"
	AMIFamilyWindows2019  = "Windows2019"
	AMIFamilyWindows2022  = "Windows2022"
	AMIFamilyWindows2025  = "Windows2025"
	AMIFamilyCustom       = "Custom"
)

// IsWindows tells the Windows Server families, which share user data, devices and AMI names.
func IsWindows(family string) bool {
	return family == AMIFamilyWindows2019 || family == AMIFamilyWindows2022 || family == AMIFamilyWindows2025
}

// WellKnownLabels returns the AWS provider's well-known labels: NodePools and pods may constrain
// them, and the scheduler knows their values from the instance types. Add them to the core
// set (karpenter.WellKnownLabels) for the full set of an AWS cluster. The set is new on each call.
func WellKnownLabels() sets.Set[string] {
	return sets.New(
		LabelInstanceCategory,
		LabelInstanceFamily,
		LabelInstanceGeneration,
		LabelInstanceSize,
		LabelInstanceCPU,
		LabelInstanceCPUManufacturer,
		LabelInstanceCPUSustainedClockSpeedMhz,
		LabelInstanceMemory,
		LabelInstanceGPUCount,
		LabelInstanceGPUName,
		LabelInstanceGPUManufacturer,
		LabelInstanceGPUMemory,
		LabelInstanceAcceleratorName,
		LabelInstanceAcceleratorManufacturer,
		LabelInstanceAcceleratorCount,
		LabelInstanceNetworkBandwidth,
		LabelInstanceEBSBandwidth,
		LabelInstanceHypervisor,
		LabelInstanceEncryptionInTransitSupported,
		LabelInstanceLocalNVME,
		LabelInstanceCapabilityFlex,
		LabelInstanceTenancy,
		LabelCapacityReservationID,
		LabelCapacityReservationType,
		LabelCapacityReservationInterruptible,
		LabelPlacementGroupID,
		LabelPlacementGroupPartition,
		LabelTopologyZoneID,
	)
}
