// Package crds owns the CustomResourceDefinitions of nodepilot's API types (karpenter.sh
// NodePool and NodeClaim, karpenter.k8s.aws EC2NodeClass). The YAML files here are generated
// by controller-gen from the types in kube/apis (make generate) and embedded in the binary,
// so a local control plane or a cluster can be given the same CRDs Karpenter installs.
package crds
