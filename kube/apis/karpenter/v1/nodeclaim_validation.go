package v1

import "k8s.io/apimachinery/pkg/util/validation/field"

// Validate checks a (defaulted) NodeClaim against the rules of its CRD and Karpenter's checks.
// Unlike a NodePool, a NodeClaim may require karpenter.sh/nodepool.
func (nc *NodeClaim) Validate() field.ErrorList {
	errs := validateObjectName(field.NewPath("metadata", "name"), nc.Name)
	spec := field.NewPath("spec")
	errs = append(errs, validateTaints(spec, nc.Spec.Taints, nc.Spec.StartupTaints)...)
	errs = append(errs, validateRequirements(spec.Child("requirements"), nc.Spec.Requirements, false)...)
	errs = append(errs, validateNodeClassRef(spec.Child("nodeClassRef"), nc.Spec.NodeClassRef)...)
	errs = append(errs, validateTerminationGracePeriod(spec.Child("terminationGracePeriod"), nc.Spec.TerminationGracePeriod)...)
	return append(errs, validateNillableDuration(spec.Child("expireAfter"), nc.Spec.ExpireAfter)...)
}
