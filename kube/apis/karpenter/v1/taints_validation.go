package v1

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateTaints checks the taints and startup taints of a NodePool template or NodeClaim: keys
// and values are qualified names (only effects are checked by the CRD, as CEL over these
// unbounded lists would exceed the cost budget), effects are known, and no key and effect pair
// appears twice across both lists.
func validateTaints(specPath *field.Path, taints, startupTaints []corev1.Taint) field.ErrorList {
	seen := map[string]bool{}
	errs := validateTaintList(specPath.Child("taints"), taints, seen)
	return append(errs, validateTaintList(specPath.Child("startupTaints"), startupTaints, seen)...)
}

func validateTaintList(path *field.Path, taints []corev1.Taint, seen map[string]bool) field.ErrorList {
	var errs field.ErrorList
	for i, t := range taints {
		p := path.Index(i)
		if t.Key == "" {
			errs = append(errs, field.Required(p.Child("key"), "a taint key is required"))
		} else if msgs := apivalidation.IsQualifiedName(t.Key); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("key"), t.Key, fmt.Sprintf("taint key %q is not a qualified name: %s", t.Key, strings.Join(msgs, "; "))))
		}
		if t.Value != "" {
			if msgs := apivalidation.IsQualifiedName(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("value"), t.Value, fmt.Sprintf("taint value %q must be empty or a qualified name: %s", t.Value, strings.Join(msgs, "; "))))
			}
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, fmt.Sprintf("must be one of NoSchedule, PreferNoSchedule, NoExecute, got %q", t.Effect)))
		}
		pair := t.Key + ":" + string(t.Effect)
		if seen[pair] {
			errs = append(errs, field.Invalid(p, pair, fmt.Sprintf("taint %s appears more than once (taints and startupTaints together)", pair)))
		}
		seen[pair] = true
	}
	return errs
}
