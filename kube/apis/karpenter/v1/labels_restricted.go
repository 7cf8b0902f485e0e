package v1

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The restricted label domains: a NodePool may not use labels of these domains (or their
// subdomains), except the listed well-known ones, because the provisioner sets them. Since
// v1.10 Karpenter's CRDs leave the kubernetes.io and k8s.io domains to the kubelet and the
// API server to judge, and so do ours.
const (
	karpenterDomain   = Group
	awsProviderDomain = "karpenter.k8s.aws"
)

// awsProviderAllowedLabels are the karpenter.k8s.aws labels a NodePool may use, as Karpenter's
// CRDs list them: the AWS provider's well-known labels (a test in karpenteraws checks they are
// all here) and the instance's tenancy, placement group and capacity reservation details.
func awsProviderAllowedLabels() []string {
	return []string{
		awsProviderDomain + "/instance-tenancy",
		awsProviderDomain + "/capacity-reservation-interruptible",
		awsProviderDomain + "/instance-capability-flex",
		awsProviderDomain + "/placement-group-id",
		awsProviderDomain + "/placement-group-partition",
		awsProviderDomain + "/ec2nodeclass",
		awsProviderDomain + "/capacity-reservation-id",
		awsProviderDomain + "/capacity-reservation-type",
		awsProviderDomain + "/instance-encryption-in-transit-supported",
		awsProviderDomain + "/instance-category",
		awsProviderDomain + "/instance-hypervisor",
		awsProviderDomain + "/instance-family",
		awsProviderDomain + "/instance-generation",
		awsProviderDomain + "/instance-local-nvme",
		awsProviderDomain + "/instance-size",
		awsProviderDomain + "/instance-cpu",
		awsProviderDomain + "/instance-cpu-manufacturer",
		awsProviderDomain + "/instance-cpu-sustained-clock-speed-mhz",
		awsProviderDomain + "/instance-memory",
		awsProviderDomain + "/instance-ebs-bandwidth",
		awsProviderDomain + "/instance-network-bandwidth",
		awsProviderDomain + "/instance-gpu-name",
		awsProviderDomain + "/instance-gpu-manufacturer",
		awsProviderDomain + "/instance-gpu-count",
		awsProviderDomain + "/instance-gpu-memory",
		awsProviderDomain + "/instance-accelerator-name",
		awsProviderDomain + "/instance-accelerator-manufacturer",
		awsProviderDomain + "/instance-accelerator-count",
	}
}

// RestrictedLabelReason returns why key may not be used as a label or requirement key of a
// NodePool (inNodePool) or a NodeClaim, or "" when it may. It mirrors the CRDs' CEL rules.
func RestrictedLabelReason(key string, inNodePool bool) string {
	domain := labelDomain(key)
	switch {
	case key == corev1.LabelHostname:
		return `label "kubernetes.io/hostname" is restricted: the provisioner sets it`
	case key == NodePoolLabelKey && inNodePool:
		return `label "karpenter.sh/nodepool" is restricted: it is set to the NodePool's name`
	case inDomain(domain, karpenterDomain) && key != CapacityTypeLabelKey && key != NodePoolLabelKey:
		return `label domain "karpenter.sh" is restricted: only karpenter.sh/capacity-type may be used`
	case inDomain(domain, awsProviderDomain) && !slices.Contains(awsProviderAllowedLabels(), key):
		return `label domain "karpenter.k8s.aws" is restricted: only its well-known labels (such as karpenter.k8s.aws/instance-family) may be used`
	}
	return ""
}

// labelDomain returns the prefix of a label key before "/", or the whole key without one.
func labelDomain(key string) string {
	domain, _, _ := strings.Cut(key, "/")
	return domain
}

// inDomain reports whether domain ends with d, as Karpenter's CRD rules read a restricted
// domain: its subdomains and look-alikes (mykarpenter.sh) are restricted too.
func inDomain(domain, d string) bool {
	return strings.HasSuffix(domain, d)
}
