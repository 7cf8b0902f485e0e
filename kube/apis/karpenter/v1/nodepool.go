package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePool is a template for the nodes that the autoscaler launches for pending pods, with
// limits on what it may launch and rules for when its nodes may be disrupted.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:path=nodepools,scope=Cluster,categories=karpenter,shortName={np,nps}
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.nodes
// +kubebuilder:printcolumn:name="NodeClass",type="string",JSONPath=".spec.template.spec.nodeClassRef.name",description=""
// +kubebuilder:printcolumn:name="Nodes",type="string",JSONPath=".status.nodes",description=""
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description=""
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description=""
// +kubebuilder:printcolumn:name="Weight",type="integer",JSONPath=".spec.weight",priority=1,description=""
// +kubebuilder:printcolumn:name="CPU",type="string",JSONPath=".status.resources.cpu",priority=1,description=""
// +kubebuilder:printcolumn:name="Memory",type="string",JSONPath=".status.resources.memory",priority=1,description=""
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec NodePoolSpec `json:"spec"`
	// +optional
	Status NodePoolStatus `json:"status,omitempty"`
}

// NodePoolList is a list of NodePools.
//
// +kubebuilder:object:root=true
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodePool `json:"items"`
}

// NodePoolSpec is what a NodePool may launch and how its nodes are disrupted. A NodePool is
// dynamic (it launches nodes for pending pods) unless replicas is set, which makes it static (it
// keeps that many nodes).
//
// +kubebuilder:validation:XValidation:rule="has(self.replicas) == has(oldSelf.replicas)",message="a NodePool cannot switch between static (replicas set) and dynamic (replicas unset); recreate it instead"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.limits) || size(self.limits) == 0 || (size(self.limits) == 1 && 'nodes' in self.limits)",message="a static NodePool (replicas set) may only limit 'nodes'"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.weight)",message="a static NodePool (replicas set) may not set 'weight'"
type NodePoolSpec struct {
	// Template describes the NodeClaims this NodePool launches. A launched NodeClaim is often
	// narrower than the template, constrained further by the pods it is launched for.
	// +required
	Template NodeClaimTemplate `json:"template"`
	// Disruption controls when the nodes of this NodePool may be consolidated.
	// +kubebuilder:default:={consolidateAfter: "0s"}
	// +optional
	Disruption Disruption `json:"disruption"`
	// Limits bound the total resources of the nodes of this NodePool.
	// +optional
	Limits Limits `json:"limits,omitempty"`
	// Weight orders NodePools: a higher weight is tried first; unset counts as 0.
	// +kubebuilder:validation:Minimum:=1
	// +kubebuilder:validation:Maximum:=100
	// +optional
	Weight *int32 `json:"weight,omitempty"`
	// Replicas, when set, makes this a static NodePool that keeps this many nodes regardless of
	// pending pods (alpha in Karpenter). Consolidation settings are then ignored.
	// +kubebuilder:validation:Minimum:=0
	// +optional
	Replicas *int64 `json:"replicas,omitempty"`
}

// Disruption controls consolidation of a NodePool's nodes.
type Disruption struct {
	// ConsolidateAfter is how long a node must stay without pod churn before it may be
	// consolidated, or "Never". As in Karpenter, it is required once disruption is written (the
	// disruption block's own default sets it to 0s), so that an object stored here is also
	// admitted by Karpenter; plan still loads a NodePool without it and says so.
	// +kubebuilder:validation:Pattern=`^(([0-9]+(s|m|h))+|Never)$`
	// +kubebuilder:validation:Type="string"
	// +kubebuilder:validation:Schemaless
	// +required
	ConsolidateAfter NillableDuration `json:"consolidateAfter,omitzero"`
	// ConsolidationPolicy says which nodes may be consolidated: only empty ones, also
	// underutilized ones, or those too but only when the saving is worth the disruption
	// (Balanced).
	// +kubebuilder:default:="WhenEmptyOrUnderutilized"
	// +kubebuilder:validation:Enum:={WhenEmpty,WhenEmptyOrUnderutilized,Balanced}
	// +optional
	ConsolidationPolicy ConsolidationPolicy `json:"consolidationPolicy,omitempty"`
	// Budgets limit how many nodes may be disrupted at once. When several are active, the most
	// restrictive applies. Unset means one budget of 10%.
	// +kubebuilder:validation:XValidation:rule="self.all(b, has(b.schedule) == has(b.duration))",message="a budget needs both 'schedule' and 'duration', or neither"
	// +kubebuilder:default:={{nodes: "10%"}}
	// +kubebuilder:validation:MaxItems=50
	// +listType=atomic
	// +optional
	Budgets []Budget `json:"budgets,omitempty"`
}

// Budget limits how many of a NodePool's nodes may be disrupting at once, always or during a
// recurring window.
type Budget struct {
	// Reasons are the disruption reasons this budget applies to; unset means all of them.
	// +kubebuilder:validation:MaxItems=50
	// +listType=set
	// +optional
	Reasons []DisruptionReason `json:"reasons,omitempty"`
	// Nodes is the most nodes that may be disrupting at once: a count ("5") or a percentage of
	// the NodePool's nodes ("10%", rounded up).
	// +kubebuilder:validation:Pattern:="^((100|[0-9]{1,2})%|[0-9]+)$"
	// +kubebuilder:default:="10%"
	// +required
	Nodes string `json:"nodes"`
	// Schedule is a cron schedule (UTC, five fields or an @-descriptor) when the budget starts
	// to apply. Unset means always. Requires Duration.
	// +kubebuilder:validation:Pattern:=`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`
	// +optional
	Schedule *string `json:"schedule,omitempty"`
	// Duration is how long the budget applies after each Schedule hit, in hours and minutes.
	// Requires Schedule.
	// +kubebuilder:validation:Pattern=`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`
	// +kubebuilder:validation:Type="string"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`
}

// ConsolidationPolicy says which nodes may be consolidated.
type ConsolidationPolicy string

// Consolidation policies.
const (
	// ConsolidationPolicyWhenEmpty consolidates only nodes without workload pods.
	ConsolidationPolicyWhenEmpty ConsolidationPolicy = "WhenEmpty"
	// ConsolidationPolicyBalanced consolidates empty and underutilized nodes, but only moves
	// whose share of the NodePool's cost saved is worth their share of its disruption.
	ConsolidationPolicyBalanced ConsolidationPolicy = "Balanced"
	// ConsolidationPolicyWhenEmptyOrUnderutilized also consolidates nodes whose pods fit elsewhere
	// or on a cheaper node.
	ConsolidationPolicyWhenEmptyOrUnderutilized ConsolidationPolicy = "WhenEmptyOrUnderutilized"
)

// DisruptionReason is a reason a budget applies to.
// +kubebuilder:validation:Enum:={Underutilized,Empty,Drifted}
type DisruptionReason string

// Disruption reasons.
const (
	DisruptionReasonUnderutilized DisruptionReason = "Underutilized"
	DisruptionReasonEmpty         DisruptionReason = "Empty"
	DisruptionReasonDrifted       DisruptionReason = "Drifted"
)

// DisruptionReasons are the reasons budgets apply to, in Karpenter's order.
func DisruptionReasons() []DisruptionReason {
	return []DisruptionReason{DisruptionReasonUnderutilized, DisruptionReasonEmpty, DisruptionReasonDrifted}
}

// Limits bound the total resources of a NodePool's nodes, by resource name.
type Limits corev1.ResourceList

// ResourceNodes is the limit on a NodePool's node count: each node counts one, whatever its size.
const ResourceNodes corev1.ResourceName = "nodes"

// NodeClaimTemplate is the template of the NodeClaims a NodePool launches.
type NodeClaimTemplate struct {
	// +optional
	ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec NodeClaimTemplateSpec `json:"spec"`
}

// ObjectMeta is the part of object metadata a NodeClaim template may set.
type ObjectMeta struct {
	// Labels are added to the NodeClaims and nodes launched from the template.
	// +kubebuilder:validation:MaxProperties:=100
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['karpenter.sh/capacity-type', 'karpenter.sh/nodepool'] || !k.find('^[^/]+').endsWith('karpenter.sh'))",message="label domain \"karpenter.sh\" is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'karpenter.sh/nodepool')",message="label \"karpenter.sh/nodepool\" is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'kubernetes.io/hostname')",message="label \"kubernetes.io/hostname\" is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['karpenter.k8s.aws/instance-tenancy', 'karpenter.k8s.aws/capacity-reservation-type', 'karpenter.k8s.aws/capacity-reservation-id', 'karpenter.k8s.aws/capacity-reservation-interruptible', 'karpenter.k8s.aws/ec2nodeclass', 'karpenter.k8s.aws/instance-encryption-in-transit-supported', 'karpenter.k8s.aws/instance-category', 'karpenter.k8s.aws/instance-hypervisor', 'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-generation', 'karpenter.k8s.aws/instance-local-nvme', 'karpenter.k8s.aws/instance-size', 'karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-cpu-manufacturer', 'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz', 'karpenter.k8s.aws/instance-memory', 'karpenter.k8s.aws/instance-ebs-bandwidth', 'karpenter.k8s.aws/instance-network-bandwidth', 'karpenter.k8s.aws/instance-gpu-name', 'karpenter.k8s.aws/instance-gpu-manufacturer', 'karpenter.k8s.aws/instance-gpu-count', 'karpenter.k8s.aws/instance-gpu-memory', 'karpenter.k8s.aws/instance-accelerator-name', 'karpenter.k8s.aws/instance-accelerator-manufacturer', 'karpenter.k8s.aws/instance-accelerator-count', 'karpenter.k8s.aws/instance-capability-flex', 'karpenter.k8s.aws/placement-group-id', 'karpenter.k8s.aws/placement-group-partition'] || !k.find('^[^/]+').endsWith('karpenter.k8s.aws'))",message="label domain \"karpenter.k8s.aws\" is restricted"
	// +mapType=atomic
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are added to the NodeClaims and nodes launched from the template.
	// +mapType=granular
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is the spec of the NodeClaims a NodePool launches (a NodeClaimSpec
// without resource requests, which come from the pods).
type NodeClaimTemplateSpec struct {
	// Taints are put on the launched nodes.
	// +kubebuilder:validation:XValidation:rule="self.all(t, t.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",message="taint effect must be one of NoSchedule, PreferNoSchedule, NoExecute"
	// +listType=atomic
	// +optional
	Taints []corev1.Taint `json:"taints,omitempty"`
	// StartupTaints are put on the launched nodes and expected to be removed soon after start
	// (typically by a DaemonSet); pods need not tolerate them to get a node launched.
	// +kubebuilder:validation:XValidation:rule="self.all(t, t.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",message="taint effect must be one of NoSchedule, PreferNoSchedule, NoExecute"
	// +listType=atomic
	// +optional
	StartupTaints []corev1.Taint `json:"startupTaints,omitempty"`
	// Requirements constrain the labels (instance type, zone, capacity type, ...) of the
	// launched nodes.
	// +kubebuilder:validation:XValidation:rule="self.all(r, r.operator != 'In' || (has(r.values) && size(r.values) > 0))",message="requirements with operator 'In' need at least one value"
	// +kubebuilder:validation:XValidation:rule="self.all(r, !(r.operator in ['Gt', 'Lt', 'Gte', 'Lte']) || (has(r.values) && size(r.values) == 1 && int(r.values[0]) >= 0))",message="requirements with operator 'Gt', 'Lt', 'Gte' or 'Lte' need exactly one non-negative integer value"
	// +kubebuilder:validation:XValidation:rule="self.all(r, !(r.operator == 'In' && has(r.minValues)) || size(r.values) >= r.minValues)",message="requirements with 'minValues' need at least that many values"
	// +kubebuilder:validation:XValidation:rule="self.all(r, r.key != 'karpenter.sh/nodepool')",message="label \"karpenter.sh/nodepool\" is restricted"
	// +kubebuilder:validation:MaxItems:=100
	// +listType=atomic
	// +required
	Requirements []NodeSelectorRequirementWithMinValues `json:"requirements" hash:"ignore"`
	// NodeClassRef names the provider-specific node class (for example an EC2NodeClass).
	// +kubebuilder:validation:XValidation:rule="self.group == oldSelf.group",message="nodeClassRef.group is immutable"
	// +kubebuilder:validation:XValidation:rule="self.kind == oldSelf.kind",message="nodeClassRef.kind is immutable"
	// +required
	NodeClassRef *NodeClassReference `json:"nodeClassRef"`
	// TerminationGracePeriod is the longest a node may take to drain once its deletion starts;
	// after it, pods are deleted even if PDBs or do-not-disrupt block them. Unset waits forever.
	// +kubebuilder:validation:Pattern=`^([0-9]+(s|m|h))+$`
	// +kubebuilder:validation:Type="string"
	// +optional
	TerminationGracePeriod *metav1.Duration `json:"terminationGracePeriod,omitempty"`
	// ExpireAfter is how long after creation a node is replaced, or "Never".
	// +kubebuilder:default:="720h"
	// +kubebuilder:validation:Pattern=`^(([0-9]+(s|m|h))+|Never)$`
	// +kubebuilder:validation:Type="string"
	// +kubebuilder:validation:Schemaless
	// +optional
	ExpireAfter NillableDuration `json:"expireAfter,omitzero"`
}

// IsStatic reports whether the NodePool is static: it keeps spec.replicas nodes, launches none
// for pods and is never consolidated.
func (np *NodePool) IsStatic() bool { return np.Spec.Replicas != nil }
