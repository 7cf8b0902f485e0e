package v1

import (
	"fmt"
	"sort"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a (defaulted) NodePool against the rules of its CRD and the checks Karpenter
// makes before using a NodePool. Each error's Field is the path of the offending field and its
// Detail says what is allowed.
func (np *NodePool) Validate() field.ErrorList {
	errs := validateObjectName(field.NewPath("metadata", "name"), np.Name)
	spec := field.NewPath("spec")
	errs = append(errs, validateWeightAndReplicas(spec, &np.Spec)...)
	errs = append(errs, validateDisruption(spec.Child("disruption"), &np.Spec.Disruption)...)
	template := spec.Child("template")
	errs = append(errs, validateTemplateLabels(template.Child("metadata", "labels"), np.Spec.Template.Labels)...)
	errs = append(errs, validateTemplateSpec(template.Child("spec"), &np.Spec.Template.Spec)...)
	return errs
}

func validateObjectName(path *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "a name is required")}
	}
	if msgs := apivalidation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(path, name, fmt.Sprintf("%q is not a valid name: %s", name, strings.Join(msgs, "; ")))}
	}
	return nil
}

func validateWeightAndReplicas(spec *field.Path, s *NodePoolSpec) field.ErrorList {
	var errs field.ErrorList
	if s.Weight != nil && (*s.Weight < 1 || *s.Weight > 100) {
		errs = append(errs, field.Invalid(spec.Child("weight"), *s.Weight, fmt.Sprintf("must be between 1 and 100, got %d", *s.Weight)))
	}
	if s.Replicas == nil {
		return errs
	}
	if *s.Replicas < 0 {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *s.Replicas, fmt.Sprintf("must be 0 or more, got %d", *s.Replicas)))
	}
	if s.Weight != nil {
		errs = append(errs, field.Forbidden(spec.Child("weight"), "a static NodePool (spec.replicas set) may not set a weight"))
	}
	var others []string
	for name := range s.Limits {
		if name != ResourceNodes {
			others = append(others, string(name))
		}
	}
	if len(others) > 0 {
		sort.Strings(others)
		errs = append(errs, field.Forbidden(spec.Child("limits"), fmt.Sprintf("a static NodePool (spec.replicas set) may only limit nodes, got %s", strings.Join(others, ", "))))
	}
	return errs
}

func validateDisruption(path *field.Path, d *Disruption) field.ErrorList {
	errs := validateNillableDuration(path.Child("consolidateAfter"), d.ConsolidateAfter)
	switch d.ConsolidationPolicy {
	case ConsolidationPolicyWhenEmpty, ConsolidationPolicyWhenEmptyOrUnderutilized, ConsolidationPolicyBalanced:
	default:
		errs = append(errs, field.Invalid(path.Child("consolidationPolicy"), d.ConsolidationPolicy,
			fmt.Sprintf("must be one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced, got %q", d.ConsolidationPolicy)))
	}
	return append(errs, validateBudgets(path.Child("budgets"), d.Budgets)...)
}

func validateTemplateLabels(path *field.Path, labels map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(labels) > 100 {
		errs = append(errs, field.Invalid(path, len(labels), fmt.Sprintf("must have at most 100 labels, got %d", len(labels))))
	}
	for _, key := range sortedKeys(labels) {
		keyPath := path.Key(key)
		if msgs := apivalidation.IsQualifiedName(key); len(msgs) > 0 {
			errs = append(errs, field.Invalid(keyPath, key, fmt.Sprintf("label key %q is not a qualified name: %s", key, strings.Join(msgs, "; "))))
			continue
		}
		if reason := RestrictedLabelReason(key, true); reason != "" {
			errs = append(errs, field.Forbidden(keyPath, reason))
		}
		if msgs := apivalidation.IsValidLabelValue(labels[key]); len(msgs) > 0 {
			errs = append(errs, field.Invalid(keyPath, labels[key], fmt.Sprintf("label value %q is invalid: %s", labels[key], strings.Join(msgs, "; "))))
		}
	}
	return errs
}

func validateTemplateSpec(path *field.Path, s *NodeClaimTemplateSpec) field.ErrorList {
	errs := validateTaints(path, s.Taints, s.StartupTaints)
	errs = append(errs, validateRequirements(path.Child("requirements"), s.Requirements, true)...)
	errs = append(errs, validateNodeClassRef(path.Child("nodeClassRef"), s.NodeClassRef)...)
	errs = append(errs, validateTerminationGracePeriod(path.Child("terminationGracePeriod"), s.TerminationGracePeriod)...)
	return append(errs, validateNillableDuration(path.Child("expireAfter"), s.ExpireAfter)...)
}

func validateNodeClassRef(path *field.Path, ref *NodeClassReference) field.ErrorList {
	if ref == nil {
		return field.ErrorList{field.Required(path, "a nodeClassRef (group, kind, name) is required")}
	}
	var errs field.ErrorList
	if ref.Group == "" {
		errs = append(errs, field.Required(path.Child("group"), "a group (such as karpenter.k8s.aws) is required"))
	} else if strings.Contains(ref.Group, "/") {
		errs = append(errs, field.Invalid(path.Child("group"), ref.Group, fmt.Sprintf("must be an API group without a version, got %q", ref.Group)))
	}
	if ref.Kind == "" {
		errs = append(errs, field.Required(path.Child("kind"), "a kind (such as EC2NodeClass) is required"))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "the node class's name is required"))
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
