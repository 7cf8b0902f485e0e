package scheduling

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// Results is the plan a solve produces.
type Results struct {
	// NewNodeClaims are the NodeClaims to launch, in the order they were planned.
	NewNodeClaims []*NodeClaim
	// ExistingNodes lists the nodes that receive pods, in input order.
	ExistingNodes []*ExistingNodeResult
	// Unschedulable are the pods that fit nowhere, each with a reason per NodePool.
	Unschedulable []*PodError
}

// NodeClaim is a NodeClaim the plan would create.
type NodeClaim struct {
	NodePool string
	// Hostname is a placeholder until the node registers.
	Hostname string
	// Requirements narrow the NodePool's requirements by what the pods need.
	Requirements requirements.Requirements
	// Labels are what the NodeClaim carries when created (claimLabels).
	Labels        map[string]string
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	// InstanceTypes are the options to launch, cheapest first, at most Options.MaxInstanceTypes.
	InstanceTypes []*cloudprovider.InstanceType
	Pods          []*corev1.Pod
	// Requests sums the pods' requests; DaemonSetOverhead is what DaemonSets add on the first option.
	Requests          corev1.ResourceList
	DaemonSetOverhead corev1.ResourceList
	// Offering is what the launch would most likely buy: spot when the NodeClaim allows it and an
	// offering exists, else the cheapest on-demand; InstanceType is its type.
	InstanceType *cloudprovider.InstanceType
	Offering     cloudprovider.Offering
	// StoppedAt, when set, is the larger type a price cliff (Options.PriceCliff) kept the
	// NodeClaim from growing into: a pod it would have taken opened another NodeClaim.
	StoppedAt *PriceCliffStop
}

// PriceCliffStop is a type a NodeClaim stopped short of, and how many times its price per pod
// (for pods shaped like the NodeClaim's, see Options.PriceCliff) that type would have cost.
type PriceCliffStop struct {
	InstanceType string  `json:"instanceType"`
	Ratio        float64 `json:"ratio"`
}

// ExistingNodeResult lists the pods placed on one existing node.
type ExistingNodeResult struct {
	Name string
	Pods []*corev1.Pod
}

// PodError is a pod the plan cannot place, and why.
type PodError struct {
	Pod *corev1.Pod
	// Reasons holds one reason per NodePool (highest weight first), or one without a NodePool
	// when the cause is not a NodePool's (no NodePool at all, the solve ran out of time).
	Reasons []Reason
}

// Ignored reports whether the solve ignored the pod, as Karpenter's provisioner does: it planned
// nothing for it (ReasonIgnored, ReasonNotForKarpenter).
func (e *PodError) Ignored() bool {
	return len(e.Reasons) == 1 && (e.Reasons[0].Code == ReasonIgnored || e.Reasons[0].Code == ReasonNotForKarpenter)
}

// Reason explains why one NodePool cannot take a pod.
type Reason struct {
	NodePool string
	// Code is a short CamelCase code (the Reason constants).
	Code string
	// Message says what is wrong, with the figures an operator needs.
	Message string
	// Hint says what would fix it, when something obvious would.
	Hint string
	// Excluded counts the instance types ruled out by each criterion.
	Excluded map[string]int
}

// Reason codes.
const (
	ReasonTaintNotTolerated     = "TaintNotTolerated"
	ReasonRequirementConflict   = "RequirementConflict"
	ReasonInsufficientResources = "InsufficientResources"
	ReasonLimitExceeded         = "LimitExceeded"
	ReasonNoOffering            = "NoOffering"
	ReasonTopologyUnsatisfiable = "TopologyUnsatisfiable"
	ReasonMinValues             = "MinValuesNotMet"
	ReasonHostPortConflict      = "HostPortConflict"
	ReasonNoInstanceTypes       = "NoInstanceTypes"
	ReasonNoNodePool            = "NoNodePool"
	ReasonSolveTimedOut         = "SolveTimedOut"
)

// PricePerHour is the price of the offering the NodeClaim would launch with.
func (nc *NodeClaim) PricePerHour() float64 { return nc.Offering.Price }

// TotalPricePerHour sums the prices of the new NodeClaims.
func (r *Results) TotalPricePerHour() float64 {
	total := 0.0
	for _, nc := range r.NewNodeClaims {
		total += nc.PricePerHour()
	}
	return total
}

// claimLabels are the labels a NodeClaim is created with, as Karpenter writes them: the NodePool's
// labels, every requirement with one value, and a value for each custom label the requirements
// still leave open (Requirement.LabelValue), since a node must carry a custom label to match a
// requirement on it (Karpenter's drift check asks the same of NodeClaims). A label is not custom
// when it is well known or any of the instance types defines it: the launch sets those from the
// instance and its offering. The hostname is the node's.
func claimLabels(pool map[string]string, reqs requirements.Requirements, wellKnown func(string) bool, types []*cloudprovider.InstanceType) map[string]string {
	labels := maps.Clone(pool)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, reqs.Labels())
	delete(labels, corev1.LabelHostname)
	for _, r := range reqs.Items() {
		if _, ok := labels[r.Key]; ok || wellKnown(r.Key) || slices.ContainsFunc(types, func(it *cloudprovider.InstanceType) bool { return it.Requirements.Has(r.Key) }) {
			continue
		}
		if v := r.LabelValue(); v != "" {
			labels[r.Key] = v
		}
	}
	return labels
}
