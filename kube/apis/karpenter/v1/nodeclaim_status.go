package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeClaim condition types. Ready is true when Launched, Registered and Initialized are.
const (
	// ConditionTypeLaunched says the cloud provider created the instance.
	ConditionTypeLaunched = "Launched"
	// ConditionTypeRegistered says the instance joined the cluster as a Node.
	ConditionTypeRegistered = "Registered"
	// ConditionTypeInitialized says the Node is ready, its startup taints are gone and its
	// resources are registered.
	ConditionTypeInitialized = "Initialized"
	// ConditionTypeConsolidatable says the node has been without pod churn for consolidateAfter.
	ConditionTypeConsolidatable = "Consolidatable"
	// ConditionTypeDrifted says the node no longer matches its NodePool or node class.
	ConditionTypeDrifted = "Drifted"
	// ConditionTypeDrained says the node's pods have been evicted.
	ConditionTypeDrained = "Drained"
	// ConditionTypeVolumesDetached says the node's volumes have been detached.
	ConditionTypeVolumesDetached = "VolumesDetached"
	// ConditionTypeInstanceTerminating says the instance is being terminated.
	ConditionTypeInstanceTerminating = "InstanceTerminating"
	// ConditionTypeConsistentStateFound says the Node matches what the NodeClaim launched.
	ConditionTypeConsistentStateFound = "ConsistentStateFound"
	// ConditionTypeDisruptionReason records why the node is being disrupted.
	ConditionTypeDisruptionReason = "DisruptionReason"
)

// NodeClaimStatus is the observed state of a NodeClaim.
type NodeClaimStatus struct {
	// NodeName is the name of the Node of this NodeClaim.
	// +optional
	NodeName string `json:"nodeName,omitempty"`
	// ProviderID is the cloud provider's ID of the instance.
	// +optional
	ProviderID string `json:"providerID,omitempty"`
	// ImageID is the ID of the image the node runs.
	// +optional
	ImageID string `json:"imageID,omitempty"`
	// Capacity is the estimated full capacity of the node.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// Allocatable is the estimated allocatable capacity of the node.
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	// Conditions are the NodeClaim's conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// LastPodEventTime is the last time a pod was scheduled to or removed from the node.
	// +optional
	LastPodEventTime metav1.Time `json:"lastPodEventTime,omitempty"`
}
