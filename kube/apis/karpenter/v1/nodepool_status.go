package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePool condition types. Ready is true when all of them are.
const (
	// ConditionTypeValidationSucceeded says the NodePool passed the checks that CRD validation
	// cannot make (such as a parseable budget schedule).
	ConditionTypeValidationSucceeded = "ValidationSucceeded"
	// ConditionTypeNodeClassReady says the referenced node class exists and is ready.
	ConditionTypeNodeClassReady = "NodeClassReady"
	// ConditionTypeNodeRegistrationHealthy says recent launches registered as nodes.
	ConditionTypeNodeRegistrationHealthy = "NodeRegistrationHealthy"
)

// ConditionTypeReady is the summary condition of NodePools and NodeClaims.
const ConditionTypeReady = "Ready"

// NodePoolStatus is the observed state of a NodePool.
type NodePoolStatus struct {
	// Resources is the total of the resources of the NodePool's nodes.
	// +optional
	Resources corev1.ResourceList `json:"resources,omitempty"`
	// Nodes is the number of the NodePool's nodes.
	// +kubebuilder:default:=0
	// +optional
	Nodes *int64 `json:"nodes,omitempty"`
	// NodeClassObservedGeneration is the generation of the node class last seen.
	// +optional
	NodeClassObservedGeneration int64 `json:"nodeClassObservedGeneration,omitempty"`
	// Conditions are the NodePool's conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
