// Package v1 owns the karpenter.sh/v1 API types, NodePool and NodeClaim, written to be
// wire-compatible with Karpenter v1: the same json field names, the same CRD defaults and
// the same validation (as kubebuilder markers, OpenAPI and CEL rules, from which the CRDs in
// kube/apis/crds are generated). It also owns the well-known karpenter.sh labels, annotations,
// taints and finalizer, the Go mirror of the CRD defaults (SetDefaults) and validation
// (Validate) for offline use, and the NodePool hash.
//
// +kubebuilder:object:generate=true
// +groupName=karpenter.sh
package v1
