package v1

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Never is the NillableDuration text for "no duration": the behaviour is disabled.
const Never = "Never"

// nillableDurationPattern is the CRD pattern of a NillableDuration: whole hours, minutes and
// seconds such as "720h" or "1h30m0s", or "Never".
const nillableDurationPattern = `^(([0-9]+(s|m|h))+|Never)$`

// NillableDuration is a duration written as a string ("720h", "1h30m") or the string "Never".
// The zero value is unset: the field was absent, and SetDefaults fills in the CRD default.
// Exactly one of Duration and Never is set once a value is present. A string that is neither
// is kept so that Validate can report it with its field path.
type NillableDuration struct {
	// Duration is the length of time, or nil when the value is unset or Never.
	Duration *time.Duration
	// Never is true when the value is "Never".
	Never bool `hash:"ignore"`
	// invalid holds a string that is neither a duration nor "Never". It is never modified, so
	// copies may share it.
	invalid *string
	// raw is the duration as it was written ("720h", not "720h0m0s"), so that an object read and
	// written back is unchanged: the API server compares NodeClaim specs for immutability.
	raw *string
}

// NewNillableDuration returns a NillableDuration of d.
func NewNillableDuration(d time.Duration) NillableDuration {
	return NillableDuration{Duration: &d}
}

// NeverDuration returns the NillableDuration "Never".
func NeverDuration() NillableDuration {
	return NillableDuration{Never: true}
}

// IsSet reports whether a value (a duration, Never, or an invalid string) is present.
func (d NillableDuration) IsSet() bool {
	return d.Duration != nil || d.Never || d.invalid != nil
}

// String returns the value as written in a manifest: a duration, "Never", or "" when unset.
func (d NillableDuration) String() string {
	switch {
	case d.Never:
		return Never
	case d.Duration != nil && d.raw != nil:
		return *d.raw
	case d.Duration != nil:
		return compact(*d.Duration)
	case d.invalid != nil:
		return *d.invalid
	default:
		return ""
	}
}

// MarshalJSON writes the value as a JSON string, or null when unset.
func (d NillableDuration) MarshalJSON() ([]byte, error) {
	if !d.IsSet() {
		return []byte("null"), nil
	}
	return json.Marshal(d.String())
}

// UnmarshalJSON reads a JSON string. A string that is neither a duration nor "Never" is kept
// for Validate to report; a non-string value is an error.
func (d *NillableDuration) UnmarshalJSON(b []byte) error {
	*d = NillableDuration{}
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration must be a string such as \"720h\" or \"Never\", got %s", b)
	}
	*d = parseNillableDuration(s)
	return nil
}

// ToUnstructured implements the apimachinery unstructured converter interface.
func (d NillableDuration) ToUnstructured() interface{} {
	if !d.IsSet() {
		return nil
	}
	return d.String()
}

func parseNillableDuration(s string) NillableDuration {
	if s == Never {
		return NeverDuration()
	}
	if !regexp.MustCompile(nillableDurationPattern).MatchString(s) {
		return NillableDuration{invalid: &s}
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return NillableDuration{invalid: &s}
	}
	return NillableDuration{Duration: &parsed, raw: &s}
}

// canonical is the value independent of how it was written ("719h60m" and "720h" are one).
func (d NillableDuration) canonical() string {
	if d.Duration != nil {
		return compact(*d.Duration)
	}
	return d.String()
}

// compact writes a duration without zero minutes and seconds: 720h, 1h30m, 90s.
func compact(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
