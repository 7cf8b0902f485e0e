package localcluster

import (
	"strings"
	"testing"
	"time"
)

// TestAccessLog checks the pod log kwok serves: n lines in the CRI format kwok reads, ending at
// now, with more than a couple of different requests.
func TestAccessLog(t *testing.T) {
	now := time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)
	lines := strings.Split(strings.TrimSuffix(accessLog(now, 50), "\n"), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d lines, want 50", len(lines))
	}
	requests := map[string]bool{}
	for i, l := range lines {
		f := strings.SplitN(l, " ", 4)
		if len(f) != 4 || (f[1] != "stdout" && f[1] != "stderr") || f[2] != "F" {
			t.Fatalf("line %d %q is not TIME STREAM F TEXT", i, l)
		}
		at, err := time.Parse(time.RFC3339Nano, f[0])
		if err != nil || !at.Before(now) {
			t.Fatalf("line %d time %q: %v, want before %v", i, f[0], err, now)
		}
		requests[strings.Split(l, `"`)[1]] = true
	}
	if len(requests) < 5 {
		t.Fatalf("only %d different requests: %v", len(requests), requests)
	}
}
