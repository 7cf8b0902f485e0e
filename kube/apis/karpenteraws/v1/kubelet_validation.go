package v1

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// reservedResources are the resources systemReserved and kubeReserved may reserve.
func reservedResources() []string {
	return []string{"cpu", "memory", "ephemeral-storage", "pid"}
}

// evictionSignals are the signals the eviction thresholds may name.
func evictionSignals() []string {
	return []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
}

func validateKubelet(path *field.Path, k *KubeletConfiguration) field.ErrorList {
	if k == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validateMinimum(path.Child("maxPods"), k.MaxPods, 0)...)
	errs = append(errs, validateMinimum(path.Child("podsPerCore"), k.PodsPerCore, 0)...)
	errs = append(errs, validateReserved(path.Child("systemReserved"), k.SystemReserved)...)
	errs = append(errs, validateReserved(path.Child("kubeReserved"), k.KubeReserved)...)
	errs = append(errs, validateSignals(path.Child("evictionHard"), sortedKeys(k.EvictionHard))...)
	errs = append(errs, validateSignals(path.Child("evictionSoft"), sortedKeys(k.EvictionSoft))...)
	errs = append(errs, validateSignals(path.Child("evictionSoftGracePeriod"), sortedKeys(k.EvictionSoftGracePeriod))...)
	for _, signal := range sortedKeys(k.EvictionSoft) {
		if _, ok := k.EvictionSoftGracePeriod[signal]; !ok {
			errs = append(errs, field.Required(path.Child("evictionSoftGracePeriod").Key(signal), fmt.Sprintf("evictionSoft signal %s needs an evictionSoftGracePeriod", signal)))
		}
	}
	for _, signal := range sortedKeys(k.EvictionSoftGracePeriod) {
		if _, ok := k.EvictionSoft[signal]; !ok {
			errs = append(errs, field.Required(path.Child("evictionSoft").Key(signal), fmt.Sprintf("evictionSoftGracePeriod signal %s needs an evictionSoft threshold", signal)))
		}
	}
	for _, p := range []struct {
		name  string
		value *int32
	}{{"imageGCHighThresholdPercent", k.ImageGCHighThresholdPercent}, {"imageGCLowThresholdPercent", k.ImageGCLowThresholdPercent}} {
		if p.value != nil && (*p.value < 0 || *p.value > 100) {
			errs = append(errs, field.Invalid(path.Child(p.name), *p.value, fmt.Sprintf("must be between 0 and 100, got %d", *p.value)))
		}
	}
	if high, low := k.ImageGCHighThresholdPercent, k.ImageGCLowThresholdPercent; high != nil && low != nil && *high <= *low {
		errs = append(errs, field.Invalid(path.Child("imageGCHighThresholdPercent"), *high,
			fmt.Sprintf("must be greater than imageGCLowThresholdPercent (%d), got %d", *low, *high)))
	}
	return errs
}

func validateMinimum(path *field.Path, v *int32, minimum int32) field.ErrorList {
	if v == nil || *v >= minimum {
		return nil
	}
	return field.ErrorList{field.Invalid(path, *v, fmt.Sprintf("must be %d or more, got %d", minimum, *v))}
}

func validateReserved(path *field.Path, reserved map[string]string) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(reserved) {
		if !slices.Contains(reservedResources(), name) {
			errs = append(errs, field.Invalid(path.Key(name), name, fmt.Sprintf("must reserve one of %s, got %q", strings.Join(reservedResources(), ", "), name)))
			continue
		}
		q, err := resource.ParseQuantity(reserved[name])
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(path.Key(name), reserved[name], fmt.Sprintf("must be a resource quantity such as 100m or 1Gi, got %q", reserved[name])))
		case q.Sign() < 0:
			errs = append(errs, field.Invalid(path.Key(name), reserved[name], fmt.Sprintf("must not be negative, got %q", reserved[name])))
		}
	}
	return errs
}

func validateSignals(path *field.Path, signals []string) field.ErrorList {
	var errs field.ErrorList
	for _, s := range signals {
		if !slices.Contains(evictionSignals(), s) {
			errs = append(errs, field.Invalid(path.Key(s), s, fmt.Sprintf("must be one of %s, got %q", strings.Join(evictionSignals(), ", "), s)))
		}
	}
	return errs
}
