package v1

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzNillableDuration checks a duration field against its definition: "Never", or a string the
// CRD's pattern admits and time.ParseDuration reads. Whatever was written reads back unchanged,
// and Validate refuses exactly what is neither.
func FuzzNillableDuration(f *testing.F) {
	for _, s := range []string{"Never", "720h", "1h30m", "0s", "90s", "1.5h", "never", "", "-1h", "9999999999999h", "1h1h", "1d", "30m0s"} {
		f.Add(s)
	}
	pattern := regexp.MustCompile(nillableDurationPattern)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // JSON text is UTF-8: encoding replaces invalid bytes, so nothing reads back
		}
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var d NillableDuration
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("a string must always decode: %q: %v", s, err)
		}
		_, parseErr := time.ParseDuration(s)
		accepted := s == Never || pattern.MatchString(s) && parseErr == nil
		if got := d.Duration != nil || d.Never; got != accepted {
			t.Fatalf("%q accepted %v, want %v", s, got, accepted)
		}
		if !d.IsSet() || d.String() != s {
			t.Fatalf("%q reads back as %q (set %v)", s, d.String(), d.IsSet())
		}
		if d.Duration != nil && *d.Duration < 0 {
			t.Fatalf("%q is negative: %v", s, *d.Duration)
		}
		if errs := validateNillableDuration(field.NewPath("d"), d); (len(errs) == 0) != accepted {
			t.Fatalf("%q: validation %v, want valid %v", s, errs, accepted)
		}
		again, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back NillableDuration
		if err := json.Unmarshal(again, &back); err != nil || back.String() != d.String() || back.canonical() != d.canonical() {
			t.Fatalf("%q round trip: %s, %v", s, again, err)
		}
	})
}

// FuzzParseSchedule checks budget schedules: an accepted schedule is a descriptor or five fields,
// and its hits are whole minutes, each after the one before.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"0 9 * * 1-5", "@daily", "@hourly", "*/15 * * * *", "0 0 30 2 *", "TZ=UTC 0 * * * *",
		"0 0 * * * *", "@every 1h", "59 23 31 12 7", "0-59/7 */3 1,15 JAN-MAR MON-FRI", "", "* * * *"} {
		f.Add(s)
	}
	start := time.Date(2026, 12, 3, 16, 40, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		sched, err := ParseSchedule(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(s, "@") && len(strings.Fields(s)) != 5 {
			t.Fatalf("%q accepted with %d fields", s, len(strings.Fields(s)))
		}
		at := start
		for range 3 {
			next := sched.Next(at)
			if next.IsZero() {
				return // no hit within the cron library's five-year horizon (February 30th)
			}
			if !next.After(at) || next.Second() != 0 || next.Nanosecond() != 0 || next.Location() != time.UTC {
				t.Fatalf("%q: after %v the next hit is %v", s, at, next)
			}
			at = next
		}
	})
}
