package v1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validateMetadataOptions(path *field.Path, m *MetadataOptions) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validateOneOf(path.Child("httpEndpoint"), m.HTTPEndpoint, MetadataHTTPEndpointEnabled, MetadataHTTPEndpointDisabled)...)
	errs = append(errs, validateOneOf(path.Child("httpProtocolIPv6"), m.HTTPProtocolIPv6, MetadataHTTPProtocolIPv6Enabled, MetadataHTTPProtocolIPv6Disabled)...)
	errs = append(errs, validateOneOf(path.Child("httpTokens"), m.HTTPTokens, MetadataHTTPTokensRequired, MetadataHTTPTokensOptional)...)
	if limit := m.HTTPPutResponseHopLimit; limit != nil && (*limit < 1 || *limit > 64) {
		errs = append(errs, field.Invalid(path.Child("httpPutResponseHopLimit"), *limit, fmt.Sprintf("must be between 1 and 64, got %d", *limit)))
	}
	return errs
}

func validateOneOf(path *field.Path, v *string, a, b string) field.ErrorList {
	if v == nil || *v == a || *v == b {
		return nil
	}
	return field.ErrorList{field.Invalid(path, *v, fmt.Sprintf("must be %s or %s, got %q", a, b, *v))}
}
