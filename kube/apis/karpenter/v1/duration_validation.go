package v1

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateNillableDuration reports a value that is neither "Never" nor a non-negative duration
// of whole seconds. An unset value is valid (SetDefaults fills it in).
func validateNillableDuration(path *field.Path, d NillableDuration) field.ErrorList {
	switch {
	case d.invalid != nil:
		return field.ErrorList{field.Invalid(path, *d.invalid,
			fmt.Sprintf(`must be a duration such as "30s", "10m" or "720h", or "Never", got %q`, *d.invalid))}
	case d.Duration != nil && (*d.Duration < 0 || *d.Duration%time.Second != 0):
		return field.ErrorList{field.Invalid(path, d.String(),
			fmt.Sprintf(`must be a non-negative number of whole seconds, minutes or hours, got %q`, d.String()))}
	}
	return nil
}

func validateTerminationGracePeriod(path *field.Path, d *metav1.Duration) field.ErrorList {
	if d == nil || (d.Duration >= 0 && d.Duration%time.Second == 0) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, d.Duration.String(),
		fmt.Sprintf(`must be a non-negative number of whole seconds, minutes or hours such as "48h", got %q`, d.Duration))}
}
