package render

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// TestHumanDurationIsKubectls checks the fast age against apimachinery's on durations from
// seconds to decades.
func TestHumanDurationIsKubectls(t *testing.T) {
	for d := -3 * time.Second; d < 20*365*24*time.Hour; d += d/20 + 997*time.Millisecond {
		if got, want := humanDuration(d), duration.HumanDuration(d); got != want {
			t.Fatalf("%v: %q, want %q", d, got, want)
		}
	}
}
