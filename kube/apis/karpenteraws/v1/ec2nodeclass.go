package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EC2NodeClass is the AWS-specific configuration of the nodes a NodePool launches: subnets,
// security groups, AMIs, IAM role, block devices, kubelet and instance metadata settings.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:path=ec2nodeclasses,scope=Cluster,categories=karpenter,shortName={ec2nc,ec2ncs}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description=""
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description=""
// +kubebuilder:printcolumn:name="Role",type="string",JSONPath=".spec.role",priority=1,description=""
type EC2NodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +kubebuilder:validation:XValidation:rule="(has(self.role) && !has(self.instanceProfile)) || (!has(self.role) && has(self.instanceProfile))",message="must specify exactly one of ['role', 'instanceProfile']"
	// +kubebuilder:validation:XValidation:rule="(has(oldSelf.role) && has(self.role)) || (has(oldSelf.instanceProfile) && has(self.instanceProfile))",message="changing from 'instanceProfile' to 'role' (or back) is not supported; recreate the EC2NodeClass instead"
	// +kubebuilder:validation:XValidation:rule="!has(self.amiFamily) || self.amiFamily == 'Custom' || !self.amiSelectorTerms.exists(t, has(t.alias)) || self.amiSelectorTerms.exists(t, has(t.alias) && t.alias.find('^[^@]+') == self.amiFamily.lowerAscii())",message="if set with an alias, amiFamily must be 'Custom' or the alias' family"
	// +kubebuilder:validation:XValidation:rule="self.amiSelectorTerms.exists(t, has(t.alias)) || has(self.amiFamily)",message="amiFamily is required when no amiSelectorTerm has an alias"
	// +optional
	Spec EC2NodeClassSpec `json:"spec,omitempty"`
	// +optional
	Status EC2NodeClassStatus `json:"status,omitempty"`
}

// EC2NodeClassList is a list of EC2NodeClasses.
//
// +kubebuilder:object:root=true
type EC2NodeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EC2NodeClass `json:"items"`
}

// EC2NodeClassSpec is the AWS configuration of launched nodes.
type EC2NodeClassSpec struct {
	// SubnetSelectorTerms select the subnets nodes launch in; a subnet matching any term is used.
	// +kubebuilder:validation:XValidation:rule="self.size() != 0",message="subnetSelectorTerms cannot be empty"
	// +kubebuilder:validation:XValidation:rule="self.all(t, has(t.tags) || has(t.id))",message="each subnetSelectorTerm needs one of 'tags' or 'id'"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.id) && has(t.tags))",message="'id' cannot be combined with other fields in a subnetSelectorTerm"
	// +kubebuilder:validation:MaxItems:=30
	// +required
	SubnetSelectorTerms []SubnetSelectorTerm `json:"subnetSelectorTerms" hash:"ignore"`
	// SecurityGroupSelectorTerms select the security groups of nodes; every group matching any
	// term is used.
	// +kubebuilder:validation:XValidation:rule="self.size() != 0",message="securityGroupSelectorTerms cannot be empty"
	// +kubebuilder:validation:XValidation:rule="self.all(t, has(t.tags) || has(t.id) || has(t.name))",message="each securityGroupSelectorTerm needs one of 'tags', 'id' or 'name'"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.id) && (has(t.tags) || has(t.name)))",message="'id' cannot be combined with other fields in a securityGroupSelectorTerm"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.name) && (has(t.tags) || has(t.id)))",message="'name' cannot be combined with other fields in a securityGroupSelectorTerm"
	// +kubebuilder:validation:MaxItems:=30
	// +required
	SecurityGroupSelectorTerms []SecurityGroupSelectorTerm `json:"securityGroupSelectorTerms" hash:"ignore"`
	// CapacityReservationSelectorTerms select the capacity reservations nodes may launch into.
	// +kubebuilder:validation:XValidation:rule="self.all(t, has(t.tags) || has(t.id) || has(t.instanceMatchCriteria))",message="each capacityReservationSelectorTerm needs one of 'tags', 'id' or 'instanceMatchCriteria'"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.id) && (has(t.tags) || has(t.ownerID) || has(t.instanceMatchCriteria)))",message="'id' cannot be combined with other fields in a capacityReservationSelectorTerm"
	// +kubebuilder:validation:MaxItems:=30
	// +optional
	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `json:"capacityReservationSelectorTerms,omitempty" hash:"ignore"`
	// PlacementGroupSelector names the placement group nodes launch in, by name or by id.
	// +kubebuilder:validation:XValidation:rule="has(self.name) || has(self.id)",message="placementGroupSelector needs one of 'name' or 'id'"
	// +kubebuilder:validation:XValidation:rule="!(has(self.name) && has(self.id))",message="placementGroupSelector takes 'name' or 'id', not both"
	// +optional
	PlacementGroupSelector *PlacementGroupSelector `json:"placementGroupSelector,omitempty"`
	// AssociatePublicIPAddress says whether launched instances get a public IP address.
	// +optional
	AssociatePublicIPAddress *bool `json:"associatePublicIPAddress,omitempty"`
	// IPPrefixCount is the number of IPv4 prefixes assigned to the primary network interface.
	// +kubebuilder:validation:Minimum:=0
	// +optional
	IPPrefixCount *int32 `json:"ipPrefixCount,omitempty" hash:"ignore"`
	// AMISelectorTerms select the AMIs of nodes: an alias ("al2023@latest") alone, or terms by
	// tags, id, name, owner or SSM parameter.
	// +kubebuilder:validation:XValidation:rule="self.all(t, has(t.tags) || has(t.id) || has(t.name) || has(t.alias) || has(t.ssmParameter))",message="each amiSelectorTerm needs one of 'tags', 'id', 'name', 'alias' or 'ssmParameter'"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.id) && (has(t.alias) || has(t.tags) || has(t.name) || has(t.owner)))",message="'id' cannot be combined with other fields in an amiSelectorTerm"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.alias) && (has(t.id) || has(t.tags) || has(t.name) || has(t.owner)))",message="'alias' cannot be combined with other fields in an amiSelectorTerm"
	// +kubebuilder:validation:XValidation:rule="!(self.exists(t, has(t.alias)) && self.size() != 1)",message="an amiSelectorTerm with 'alias' must be the only amiSelectorTerm"
	// +kubebuilder:validation:MinItems:=1
	// +kubebuilder:validation:MaxItems:=30
	// +required
	AMISelectorTerms []AMISelectorTerm `json:"amiSelectorTerms" hash:"ignore"`
	// AMIFamily sets the user data format and default block devices. Optional with an alias
	// (then it must be the alias' family or Custom); required otherwise.
	// +kubebuilder:validation:Enum:={AL2,AL2023,Bottlerocket,Custom,Windows2019,Windows2022,Windows2025}
	// +optional
	AMIFamily *string `json:"amiFamily,omitempty" hash:"ignore"`
	// UserData is merged into the user data of launched nodes, in the format of the AMI family.
	// +optional
	UserData *string `json:"userData,omitempty"`
	// Role is the IAM role of the nodes; exactly one of role and instanceProfile is set.
	// +kubebuilder:validation:XValidation:rule="self != ''",message="role cannot be empty"
	// +optional
	Role string `json:"role,omitempty"`
	// InstanceProfile is an existing IAM instance profile for the nodes; exactly one of role and
	// instanceProfile is set.
	// +kubebuilder:validation:XValidation:rule="self != ''",message="instanceProfile cannot be empty"
	// +optional
	InstanceProfile *string `json:"instanceProfile,omitempty"`
	// Tags are applied to the EC2 resources (instances, volumes, launch templates).
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != '')",message="empty tag keys aren't supported"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'eks:eks-cluster-name')",message="tag eks:eks-cluster-name is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('kubernetes.io/cluster'))",message="tags starting with kubernetes.io/cluster are restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'karpenter.sh/nodepool')",message="tag karpenter.sh/nodepool is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'karpenter.sh/nodeclaim')",message="tag karpenter.sh/nodeclaim is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'karpenter.k8s.aws/ec2nodeclass')",message="tag karpenter.k8s.aws/ec2nodeclass is restricted"
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
	// Kubelet configures the kubelet of launched nodes.
	// +kubebuilder:validation:XValidation:rule="has(self.imageGCHighThresholdPercent) && has(self.imageGCLowThresholdPercent) ? self.imageGCHighThresholdPercent > self.imageGCLowThresholdPercent : true",message="imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"
	// +kubebuilder:validation:XValidation:rule="has(self.evictionSoft) ? self.evictionSoft.all(e, has(self.evictionSoftGracePeriod) && e in self.evictionSoftGracePeriod) : true",message="every evictionSoft signal needs an evictionSoftGracePeriod"
	// +kubebuilder:validation:XValidation:rule="has(self.evictionSoftGracePeriod) ? self.evictionSoftGracePeriod.all(e, has(self.evictionSoft) && e in self.evictionSoft) : true",message="every evictionSoftGracePeriod signal needs an evictionSoft threshold"
	// +optional
	Kubelet *KubeletConfiguration `json:"kubelet,omitempty"`
	// BlockDeviceMappings are the block devices of launched nodes.
	// +kubebuilder:validation:XValidation:rule="self.filter(x, has(x.rootVolume) ? x.rootVolume : false).size() <= 1",message="at most one blockDeviceMapping may be the rootVolume"
	// +kubebuilder:validation:MaxItems:=50
	// +optional
	BlockDeviceMappings []*BlockDeviceMapping `json:"blockDeviceMappings,omitempty"`
	// InstanceStorePolicy says how instance-store disks are used.
	// +optional
	InstanceStorePolicy *InstanceStorePolicy `json:"instanceStorePolicy,omitempty"`
	// NetworkInterfaces are the network interfaces attached to launched instances; when set,
	// one is the primary (network card 0, device 0, type interface).
	// +kubebuilder:validation:XValidation:rule="self.size() == 0 || self.exists(i, i.networkCardIndex == 0 && i.deviceIndex == 0 && i.interfaceType == 'interface')",message="networkInterfaces need a primary interface: networkCardIndex 0, deviceIndex 0, interfaceType 'interface'"
	// +kubebuilder:validation:XValidation:rule="self.all(i, self.filter(j, j.networkCardIndex == i.networkCardIndex && j.deviceIndex == i.deviceIndex).size() == 1 && (i.interfaceType != 'efa-only' || self.filter(j, j.networkCardIndex == i.networkCardIndex && j.interfaceType == 'efa-only').size() == 1))",message="each networkCardIndex and deviceIndex pair is used once, and a network card has at most one efa-only interface"
	// +kubebuilder:validation:MaxItems:=150
	// +optional
	NetworkInterfaces []*NetworkInterface `json:"networkInterfaces,omitempty"`
	// DetailedMonitoring enables detailed CloudWatch monitoring of launched instances.
	// +optional
	DetailedMonitoring *bool `json:"detailedMonitoring,omitempty"`
	// MetadataOptions configure the instance metadata service of launched nodes. Unset means
	// endpoint enabled, IPv6 endpoint disabled, hop limit 1, tokens required.
	// +kubebuilder:default={"httpEndpoint":"enabled","httpProtocolIPv6":"disabled","httpPutResponseHopLimit":1,"httpTokens":"required"}
	// +optional
	MetadataOptions *MetadataOptions `json:"metadataOptions,omitempty"`
	// ConnectionTracking sets the idle connection tracking timeouts of the network interfaces
	// of launched instances (EFA-only interfaces excepted).
	// +optional
	ConnectionTracking *ConnectionTracking `json:"connectionTracking,omitempty"`
	// Context is the EC2 Fleet context (a reserved field of the EC2 APIs).
	// +optional
	Context *string `json:"context,omitempty"`
	// CPUOptions configure the CPUs of launched instances.
	// +optional
	CPUOptions *CPUOptions `json:"cpuOptions,omitempty"`
}

// PlacementGroupSelector names an EC2 placement group.
type PlacementGroupSelector struct {
	// Name is the placement group's name.
	// +kubebuilder:validation:MinLength:=1
	// +optional
	Name *string `json:"name,omitempty"`
	// ID is the placement group's id (pg-...).
	// +kubebuilder:validation:Pattern:="^pg-[0-9a-z]+$"
	// +optional
	ID *string `json:"id,omitempty"`
}

// InterfaceType is the type of a network interface: interface (ENA) or efa-only.
type InterfaceType string

// NetworkInterface is one network interface of launched instances.
type NetworkInterface struct {
	// NetworkCardIndex is the network card the interface is attached to.
	// +kubebuilder:validation:Minimum:=0
	NetworkCardIndex int32 `json:"networkCardIndex"`
	// DeviceIndex is the interface's device index on its card.
	// +kubebuilder:validation:Minimum:=0
	DeviceIndex int32 `json:"deviceIndex"`
	// InterfaceType is interface or efa-only.
	// +kubebuilder:validation:Enum:={interface,efa-only}
	InterfaceType InterfaceType `json:"interfaceType"`
}

// ConnectionTracking holds idle connection tracking timeouts, in seconds; unset ones keep
// EC2's defaults.
// +kubebuilder:validation:XValidation:rule="has(self.tcpEstablishedTimeout) || has(self.udpStreamTimeout) || has(self.udpTimeout)",message="connectionTracking needs one of tcpEstablishedTimeout, udpStreamTimeout or udpTimeout"
type ConnectionTracking struct {
	// TCPEstablishedTimeout is for idle established TCP connections: 60 to 432,000.
	// +kubebuilder:validation:Minimum:=60
	// +kubebuilder:validation:Maximum:=432000
	// +optional
	TCPEstablishedTimeout *int32 `json:"tcpEstablishedTimeout,omitempty"`
	// UDPStreamTimeout is for idle UDP flows that saw more than one request and response: 60 to 180.
	// +kubebuilder:validation:Minimum:=60
	// +kubebuilder:validation:Maximum:=180
	// +optional
	UDPStreamTimeout *int32 `json:"udpStreamTimeout,omitempty"`
	// UDPTimeout is for other idle UDP flows: 30 to 60.
	// +kubebuilder:validation:Minimum:=30
	// +kubebuilder:validation:Maximum:=60
	// +optional
	UDPTimeout *int32 `json:"udpTimeout,omitempty"`
}

// CPUOptions configure the CPUs of launched instances.
type CPUOptions struct {
	// NestedVirtualization is enabled or disabled; enabled limits instance types to those
	// that support it.
	// +kubebuilder:validation:Enum:={enabled,disabled}
	// +optional
	NestedVirtualization *string `json:"nestedVirtualization,omitempty"`
}

// SubnetSelectorTerm selects subnets by tags or by id.
type SubnetSelectorTerm struct {
	// Tags select subnets having all these tags; a value of "*" matches any value.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != '' && self[k] != '')",message="empty tag keys or values aren't supported"
	// +kubebuilder:validation:MaxProperties:=20
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
	// ID is a subnet id.
	// +kubebuilder:validation:Pattern="subnet-[0-9a-z]+"
	// +optional
	ID string `json:"id,omitempty"`
}

// SecurityGroupSelectorTerm selects security groups by tags, id or name.
type SecurityGroupSelectorTerm struct {
	// Tags select security groups having all these tags; a value of "*" matches any value.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != '' && self[k] != '')",message="empty tag keys or values aren't supported"
	// +kubebuilder:validation:MaxProperties:=20
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
	// ID is a security group id.
	// +kubebuilder:validation:Pattern:="sg-[0-9a-z]+"
	// +optional
	ID string `json:"id,omitempty"`
	// Name is a security group name (the group's name field, not its Name tag).
	// +optional
	Name string `json:"name,omitempty"`
}

// CapacityReservationSelectorTerm selects capacity reservations by tags, id, owner or match
// criteria.
type CapacityReservationSelectorTerm struct {
	// Tags select reservations having all these tags; a value of "*" matches any value.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != '' && self[k] != '')",message="empty tag keys or values aren't supported"
	// +kubebuilder:validation:MaxProperties:=20
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
	// ID is a capacity reservation id.
	// +kubebuilder:validation:Pattern:="^cr-[0-9a-z]+$"
	// +optional
	ID string `json:"id,omitempty"`
	// OwnerID is the account id owning the reservation.
	// +kubebuilder:validation:Pattern:="^[0-9]{12}$"
	// +optional
	OwnerID string `json:"ownerID,omitempty"`
	// InstanceMatchCriteria selects open or targeted reservations.
	// +kubebuilder:validation:Enum:={open,targeted}
	// +optional
	InstanceMatchCriteria string `json:"instanceMatchCriteria,omitempty"`
}

// AMISelectorTerm selects AMIs by alias, tags, id, name, owner or SSM parameter.
type AMISelectorTerm struct {
	// Alias selects an EKS-optimized AMI as "family@version": family one of al2, al2023,
	// bottlerocket, windows2019, windows2022, windows2025; version a release (such as "v20240625") or
	// "latest" (Windows families support only "latest").
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-zA-Z0-9]+@.+$')",message="'alias' must have the form 'family@version'"
	// +kubebuilder:validation:XValidation:rule="self.find('^[^@]+') in ['al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025']",message="alias family must be one of 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'"
	// +kubebuilder:validation:XValidation:rule="!(self.find('^[^@]+') in ['windows2019', 'windows2022', 'windows2025']) || self.endsWith('@latest')",message="windows alias families only support version 'latest'"
	// +kubebuilder:validation:MaxLength=30
	// +optional
	Alias string `json:"alias,omitempty"`
	// Tags select AMIs having all these tags; a value of "*" matches any value.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != '' && self[k] != '')",message="empty tag keys or values aren't supported"
	// +kubebuilder:validation:MaxProperties:=20
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
	// ID is an AMI id.
	// +kubebuilder:validation:Pattern:="ami-[0-9a-z]+"
	// +optional
	ID string `json:"id,omitempty"`
	// Name is an AMI name (the image's name field, not its Name tag).
	// +optional
	Name string `json:"name,omitempty"`
	// Owner restricts AMIs to an owner: an account id, "self", "amazon" or "aws-marketplace".
	// +optional
	Owner string `json:"owner,omitempty"`
	// SSMParameter is the name or ARN of an SSM parameter holding an AMI id.
	// +optional
	SSMParameter string `json:"ssmParameter,omitempty"`
}

// InstanceStorePolicy says how instance-store disks are used.
// +kubebuilder:validation:Enum={RAID0}
type InstanceStorePolicy string

// InstanceStorePolicyRAID0 puts all instance-store NVMe disks in a RAID-0 array used for the
// kubelet and containerd state (more, faster ephemeral storage).
const InstanceStorePolicyRAID0 InstanceStorePolicy = "RAID0"
