package eventually

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB whose Fatal records the failure instead of ending the test.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Fatal(args ...any)                 { r.failure = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failure = fmt.Sprintf(format, args...) }

func TestTrue(t *testing.T) {
	for _, tc := range []struct {
		name string
		// doneAt is the call that reports done (0: never).
		doneAt      int
		wantCalls   int
		wantFailure string
	}{
		{name: "at once", doneAt: 1, wantCalls: 1},
		{name: "at the fifth call", doneAt: 5, wantCalls: 5},
		{name: "never", doneAt: 0, wantFailure: "the thing: not within 50ms; last: call "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			calls := 0
			True(r, 50*time.Millisecond, "the thing", func(ctx context.Context) (bool, string) {
				calls++
				if ctx.Err() != nil {
					t.Errorf("call %d with an ended context", calls)
				}
				return calls == tc.doneAt, fmt.Sprintf("call %d", calls)
			})
			if tc.wantFailure == "" {
				if r.failure != "" || calls != tc.wantCalls {
					t.Errorf("failure %q after %d calls, want none after %d", r.failure, calls, tc.wantCalls)
				}
				return
			}
			// Polled quickly at first, then no faster than every 100 ms: a handful of calls.
			if !strings.HasPrefix(r.failure, tc.wantFailure) || calls < 3 || calls > 10 {
				t.Errorf("failure %q after %d calls, want %q... after 3 to 10", r.failure, calls, tc.wantFailure)
			}
		})
	}
}

func TestReceive(t *testing.T) {
	ready := make(chan int, 1)
	ready <- 7
	r := &recorder{TB: t}
	if got := Receive(r, time.Second, "seven", ready); got != 7 || r.failure != "" {
		t.Errorf("Receive = %d (failure %q), want 7", got, r.failure)
	}
	closed := make(chan struct{})
	close(closed)
	if Receive(r, time.Second, "the end", closed); r.failure != "" {
		t.Errorf("a closed channel: failure %q", r.failure)
	}
	if got := Receive(r, 20*time.Millisecond, "nothing", make(chan int)); got != 0 || r.failure != "nothing: not within 20ms" {
		t.Errorf("Receive = %d, failure %q", got, r.failure)
	}
}
