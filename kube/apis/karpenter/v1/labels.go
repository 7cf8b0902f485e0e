package v1

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Well-known label values.
const (
	ArchitectureAmd64    = "amd64"
	ArchitectureArm64    = "arm64"
	CapacityTypeSpot     = "spot"
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeReserved = "reserved"
)

// karpenter.sh labels.
const (
	// NodePoolLabelKey names the NodePool a node was launched from.
	NodePoolLabelKey = Group + "/nodepool"
	// CapacityTypeLabelKey is the capacity type of a node: spot, on-demand or reserved.
	CapacityTypeLabelKey = Group + "/capacity-type"
	// NodeInitializedLabelKey marks a node that finished initialization.
	NodeInitializedLabelKey = Group + "/initialized"
	// NodeRegisteredLabelKey marks a node that registered for its NodeClaim.
	NodeRegisteredLabelKey = Group + "/registered"
	// NodeDoNotSyncTaintsLabelKey stops taints being copied from the NodeClaim to the node.
	NodeDoNotSyncTaintsLabelKey = Group + "/do-not-sync-taints"
)

// karpenter.sh annotations.
const (
	// DoNotDisruptAnnotationKey on a pod or node ("true") blocks voluntary disruption.
	DoNotDisruptAnnotationKey = Group + "/do-not-disrupt"
	// NodePoolHashAnnotationKey holds Hash of the NodePool that launched a NodeClaim.
	NodePoolHashAnnotationKey = Group + "/nodepool-hash"
	// NodePoolHashVersionAnnotationKey holds the version of the hash scheme (NodePoolHashVersion).
	NodePoolHashVersionAnnotationKey = Group + "/nodepool-hash-version"
	// NodeClaimTerminationTimestampAnnotationKey holds when a NodeClaim's drain must end.
	NodeClaimTerminationTimestampAnnotationKey = Group + "/nodeclaim-termination-timestamp"
	// NodeClaimMinValuesRelaxedAnnotationKey ("true"/"false") says whether minValues were
	// relaxed to launch a NodeClaim.
	NodeClaimMinValuesRelaxedAnnotationKey = Group + "/nodeclaim-min-values-relaxed"
)

// TerminationFinalizer holds NodeClaims and nodes until their instance is gone.
const TerminationFinalizer = Group + "/termination"

// WellKnownLabels returns the labels Karpenter core knows the values of: NodePools and pods may
// constrain them, and the scheduler treats them as defined by the instance types. The AWS
// provider adds its own (karpenteraws.WellKnownLabels). The set is new on each call.
func WellKnownLabels() sets.Set[string] {
	return sets.New(
		NodePoolLabelKey,
		corev1.LabelTopologyZone,
		corev1.LabelTopologyRegion,
		corev1.LabelInstanceTypeStable,
		corev1.LabelArchStable,
		corev1.LabelOSStable,
		CapacityTypeLabelKey,
		corev1.LabelWindowsBuild,
	)
}

// RestrictedLabels returns the labels that may not be set or required by a NodePool because
// the provisioning logic owns them. The set is new on each call.
func RestrictedLabels() sets.Set[string] {
	return sets.New(corev1.LabelHostname)
}

// AllowedUndefinedLabels returns the labels a requirement may name even when a node's labels do
// not define them (the well-known and the restricted labels): the scheduler fills them in from
// the instance type and offering. The set is new on each call.
func AllowedUndefinedLabels() sets.Set[string] {
	return WellKnownLabels().Union(RestrictedLabels())
}

// NodeClassLabelKey is the label Karpenter puts on NodeClaims and nodes naming their node class:
// the class's group and lower-cased kind (karpenter.k8s.aws/ec2nodeclass).
func NodeClassLabelKey(group, kind string) string {
	return group + "/" + strings.ToLower(kind)
}

// NormalizedLabels returns the deprecated label keys that Karpenter rewrites to their
// well-known equivalents in pod requirements, with the EBS CSI driver's zone key, which
// karpenter-provider-aws adds when it starts (volumes of that driver name their zone with it).
// The map is new on each call.
func NormalizedLabels() map[string]string {
	return map[string]string{
		corev1.LabelFailureDomainBetaZone:   corev1.LabelTopologyZone,
		corev1.LabelFailureDomainBetaRegion: corev1.LabelTopologyRegion,
		"beta.kubernetes.io/arch":           corev1.LabelArchStable,
		"beta.kubernetes.io/os":             corev1.LabelOSStable,
		corev1.LabelInstanceType:            corev1.LabelInstanceTypeStable,
		"topology.ebs.csi.aws.com/zone":     corev1.LabelTopologyZone,
	}
}
