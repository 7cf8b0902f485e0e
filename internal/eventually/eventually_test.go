package eventually

import (
	"context"
	"fmt"
	"slices"
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
			// Polled again, but not hot: a busy loop would call thousands of times in 50 ms. (How
			// quickly it polls is TestPollSchedule's: counting calls here would time the machine.)
			if !strings.HasPrefix(r.failure, tc.wantFailure) || calls < 2 || calls > 10 {
				t.Errorf("failure %q after %d calls, want %q... after 2 to 10", r.failure, calls, tc.wantFailure)
			}
		})
	}
}

// TestPollSchedule: a condition is asked again after 1 ms, then twice as late each time, never
// later than 100 ms.
func TestPollSchedule(t *testing.T) {
	var got []time.Duration
	for poll := firstPoll; len(got) < 10; poll = nextPoll(poll) {
		got = append(got, poll)
	}
	ms := time.Millisecond
	want := []time.Duration{ms, 2 * ms, 4 * ms, 8 * ms, 16 * ms, 32 * ms, 64 * ms, 100 * ms, 100 * ms, 100 * ms}
	if !slices.Equal(got, want) {
		t.Errorf("polls %v, want %v", got, want)
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
