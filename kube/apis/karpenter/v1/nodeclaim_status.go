package v1

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
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

// nodeClaimReadyDependents are the conditions a NodeClaim's Ready summarizes, in the order they
// come true.
var nodeClaimReadyDependents = []string{ConditionTypeLaunched, ConditionTypeRegistered, ConditionTypeInitialized}

// IsNodeClaimReadyDependent reports whether a condition type is one Ready summarizes.
func IsNodeClaimReadyDependent(conditionType string) bool {
	return slices.Contains(nodeClaimReadyDependents, conditionType)
}

// NodeClaimReady is the Ready condition a NodeClaim's conditions imply, as Karpenter computes it
// (so kubectl get nodeclaims fills its READY column the same): True once Launched, Registered
// and Initialized are; False (UnhealthyDependents) when one of them is False; Unknown
// (ReconcilingDependents) while one is missing or Unknown. The message names those not True.
func NodeClaimReady(conditions []metav1.Condition, generation int64, now time.Time) metav1.Condition {
	ready := metav1.Condition{Type: ConditionTypeReady, Status: metav1.ConditionTrue, Reason: ConditionTypeReady,
		ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(now)}
	var unhealthy []string
	for _, t := range nodeClaimReadyDependents {
		status := metav1.ConditionUnknown
		if c := meta.FindStatusCondition(conditions, t); c != nil {
			status = c.Status
		}
		switch status {
		case metav1.ConditionTrue:
			continue
		case metav1.ConditionFalse:
			ready.Status, ready.Reason = metav1.ConditionFalse, "UnhealthyDependents"
		default:
			if ready.Status != metav1.ConditionFalse {
				ready.Status, ready.Reason = metav1.ConditionUnknown, "ReconcilingDependents"
			}
		}
		unhealthy = append(unhealthy, t+"="+string(status))
	}
	ready.Message = strings.Join(unhealthy, ", ")
	return ready
}
