package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EC2NodeClass condition types. Ready is true when all of them are.
const (
	ConditionTypeSubnetsReady              = "SubnetsReady"
	ConditionTypeSecurityGroupsReady       = "SecurityGroupsReady"
	ConditionTypeAMIsReady                 = "AMIsReady"
	ConditionTypeInstanceProfileReady      = "InstanceProfileReady"
	ConditionTypeCapacityReservationsReady = "CapacityReservationsReady"
	ConditionTypeValidationSucceeded       = "ValidationSucceeded"
	ConditionTypeReady                     = "Ready"
)

// EC2NodeClassStatus is what the selectors of an EC2NodeClass resolved to.
type EC2NodeClassStatus struct {
	// Subnets are the subnets selected.
	// +optional
	Subnets []Subnet `json:"subnets,omitempty"`
	// SecurityGroups are the security groups selected.
	// +optional
	SecurityGroups []SecurityGroup `json:"securityGroups,omitempty"`
	// CapacityReservations are the capacity reservations selected.
	// +optional
	CapacityReservations []CapacityReservation `json:"capacityReservations,omitempty"`
	// AMIs are the AMIs selected, with the requirements an instance type must meet to use each.
	// +optional
	AMIs []AMI `json:"amis,omitempty"`
	// InstanceProfile is the instance profile nodes use.
	// +optional
	InstanceProfile string `json:"instanceProfile,omitempty"`
	// Conditions are the EC2NodeClass's conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// StatusConditions are the EC2NodeClass's status conditions (the engine's state.NodeClass).
func (nc *EC2NodeClass) StatusConditions() []metav1.Condition { return nc.Status.Conditions }

// Subnet is a selected subnet.
type Subnet struct {
	// ID of the subnet.
	// +required
	ID string `json:"id"`
	// Zone is the subnet's availability zone.
	// +required
	Zone string `json:"zone"`
	// ZoneID is the subnet's availability zone id.
	// +optional
	ZoneID string `json:"zoneID,omitempty"`
}

// SecurityGroup is a selected security group.
type SecurityGroup struct {
	// ID of the security group.
	// +required
	ID string `json:"id"`
	// Name of the security group.
	// +optional
	Name string `json:"name,omitempty"`
}

// AMI is a selected AMI.
type AMI struct {
	// ID of the AMI.
	// +required
	ID string `json:"id"`
	// Deprecated says the AMI is deprecated.
	// +optional
	Deprecated bool `json:"deprecated,omitempty"`
	// Name of the AMI.
	// +optional
	Name string `json:"name,omitempty"`
	// Requirements an instance type must meet to use this AMI (such as its architecture).
	// +required
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
}

// CapacityReservation is a selected capacity reservation.
type CapacityReservation struct {
	// AvailabilityZone of the reservation.
	// +required
	AvailabilityZone string `json:"availabilityZone"`
	// EndTime is when the reservation expires.
	// +optional
	EndTime *metav1.Time `json:"endTime,omitempty"`
	// ID of the reservation.
	// +kubebuilder:validation:Pattern:="^cr-[0-9a-z]+$"
	// +required
	ID string `json:"id"`
	// InstanceMatchCriteria is open or targeted.
	// +kubebuilder:validation:Enum:={open,targeted}
	// +required
	InstanceMatchCriteria string `json:"instanceMatchCriteria"`
	// InstanceType of the reservation.
	// +required
	InstanceType string `json:"instanceType"`
	// OwnerID is the account owning the reservation.
	// +kubebuilder:validation:Pattern:="^[0-9]{12}$"
	// +required
	OwnerID string `json:"ownerID"`
	// ReservationType is default or capacity-block.
	// +kubebuilder:validation:Enum:={default,capacity-block}
	// +kubebuilder:default=default
	// +optional
	ReservationType CapacityReservationType `json:"reservationType,omitempty"`
	// State is active, or expiring for a capacity block within its reclaim window.
	// +kubebuilder:validation:Enum:={active,expiring}
	// +kubebuilder:default=active
	// +optional
	State CapacityReservationState `json:"state,omitempty"`
}

// CapacityReservationType is the type of a capacity reservation.
type CapacityReservationType string

// Capacity reservation types.
const (
	CapacityReservationTypeDefault       CapacityReservationType = "default"
	CapacityReservationTypeCapacityBlock CapacityReservationType = "capacity-block"
)

// CapacityReservationState is the state of a capacity reservation.
type CapacityReservationState string

// Capacity reservation states.
const (
	CapacityReservationStateActive   CapacityReservationState = "active"
	CapacityReservationStateExpiring CapacityReservationState = "expiring"
)
