package provisioning

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/internal/eventually"
)

// TestBatcher: a batch opens on a trigger and closes when the idle window passes without one or
// the max window since it opened passes, whichever is first; Wait returns false when its context
// ends first. Windows are stepped on a fake clock: before the closing step no timer can fire, so
// "still open" is not a matter of timing.
func TestBatcher(t *testing.T) {
	for _, tc := range []struct {
		name      string
		idle, max time.Duration
		trigger   bool
		// open is a step after which the batch must still be open; close the step that closes it.
		open, close time.Duration
		cancel      bool
		want        bool
	}{
		{"the idle window closes it", time.Second, 10 * time.Second, true, 999 * time.Millisecond, time.Millisecond, false, true},
		{"the max window closes it first", 10 * time.Second, 3 * time.Second, true, 2 * time.Second, time.Second, false, true},
		{"its context ends during the batch", time.Second, 10 * time.Second, true, 500 * time.Millisecond, 0, true, false},
		{"its context ends before any trigger", time.Second, 10 * time.Second, false, 5 * time.Second, 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC))
			b := NewBatcher(clk, tc.idle, tc.max)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan bool, 1)
			go func() { done <- b.Wait(ctx) }()
			if tc.trigger {
				b.Trigger()
				eventually.True(t, 10*time.Second, "Wait to start its windows", func(context.Context) (bool, string) { return clk.HasWaiters(), "" })
			}
			clk.Step(tc.open)
			select {
			case got := <-done:
				t.Fatalf("Wait returned %v after %s, before the batch could close", got, tc.open)
			default:
			}
			if tc.cancel {
				cancel()
			} else {
				clk.Step(tc.close)
			}
			if got := eventually.Receive(t, 10*time.Second, "Wait to return", done); got != tc.want {
				t.Errorf("Wait = %v, want %v", got, tc.want)
			}
		})
	}
}
