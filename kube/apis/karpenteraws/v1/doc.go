// Package v1 owns the karpenter.k8s.aws/v1 API type EC2NodeClass, wire-compatible with the
// Karpenter AWS provider v1: the same json field names, CRD defaults and validation (as
// kubebuilder markers and CEL rules, from which kube/apis/crds is generated). It also owns the
// AWS provider's well-known labels and annotations, the Go mirror of the CRD defaults
// (SetDefaults) and validation (Validate) for offline use, AMI aliases, and the EC2NodeClass hash.
//
// +kubebuilder:object:generate=true
// +groupName=karpenter.k8s.aws
package v1
