package manifest

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePodSpec rejects what the API server rejects in a pod spec and planning would otherwise
// take at face value: no containers, negative requests or limits, requests above limits. The
// paths and words are the API server's (field.Error's own rendering), so the message is the one
// kubectl apply would print.
func validatePodSpec(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(path.Child("containers"), ""))
	}
	for i := range spec.InitContainers {
		errs = append(errs, validateResources(&spec.InitContainers[i].Resources, path.Child("initContainers").Index(i).Child("resources"))...)
	}
	for i := range spec.Containers {
		errs = append(errs, validateResources(&spec.Containers[i].Resources, path.Child("containers").Index(i).Child("resources"))...)
	}
	return errs
}

// validateResources checks one container's requests and limits, in resource name order.
func validateResources(r *corev1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(r.Limits)) {
		if q := r.Limits[name]; q.Sign() < 0 {
			errs = append(errs, field.Invalid(path.Child("limits").Key(string(name)), q.String(), apivalidation.IsNegativeErrorMsg))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		q, p := r.Requests[name], path.Child("requests").Key(string(name))
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(p, q.String(), apivalidation.IsNegativeErrorMsg))
			continue
		}
		if limit, ok := r.Limits[name]; ok && q.Cmp(limit) > 0 {
			errs = append(errs, field.Invalid(p, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		}
	}
	return errs
}
