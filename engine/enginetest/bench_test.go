package enginetest

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkIdleHour measures the world's own cost: an hour of one-second steps over 50 nodes
// and 500 running pods, with nothing to do.
func BenchmarkIdleHour(b *testing.B) {
	for b.Loop() {
		e := NewEnv(b)
		for i := range 50 {
			if _, err := e.API.CreateNode(b.Context(), readyNode(fmt.Sprintf("n%d", i))); err != nil {
				b.Fatal(err)
			}
		}
		for i := range 10 {
			e.Deployment(fmt.Sprintf("d%d", i), 50, Resources("50m", "64Mi"))
		}
		e.Advance(time.Hour, time.Second)
	}
}
