// Package eventually waits, in tests, for a condition that another goroutine or process makes
// true: with a deadline always, polling quickly at first and more slowly later, and failing the
// test with what was awaited and the last state seen. It is the one such wait of the tests, so
// none spins without a bound and none sleeps in place of checking.
package eventually

import (
	"context"
	"testing"
	"time"
)

// The poll interval starts at firstPoll and doubles up to maxPoll: an in-process condition is
// seen within a millisecond, and a cluster's is not asked about more than ten times a second.
const (
	firstPoll = time.Millisecond
	maxPoll   = 100 * time.Millisecond
)

// True calls cond until it reports done, and fails tb (Fatalf) when timeout passes first or the
// test's context ends, naming what and the state cond last described. cond's context ends at
// the deadline, for conditions that make calls.
func True(tb testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (done bool, state string)) {
	tb.Helper()
	if err := Wait(tb.Context(), timeout, what, cond); err != nil {
		tb.Fatal(err)
	}
}

// Wait is True for a caller that is not the test's goroutine (t.Fatal may only be called from
// it): it returns the failure instead.
func Wait(ctx context.Context, timeout time.Duration, what string, cond func(ctx context.Context) (done bool, state string)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	poll := firstPoll
	for {
		done, state := cond(ctx)
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
		// Checked after the select, not in it: when the poll and the deadline end together,
		// select may take the poll, and cond must not be asked again with an ended context.
		if ctx.Err() != nil {
			return &TimeoutError{What: what, Timeout: timeout, Last: state}
		}
		poll = nextPoll(poll)
	}
}

// nextPoll is the wait after one of poll: twice as long, up to maxPoll.
func nextPoll(poll time.Duration) time.Duration { return min(2*poll, maxPoll) }

// TimeoutError says what was awaited in vain, for how long, and the state last seen.
type TimeoutError struct {
	What    string
	Timeout time.Duration
	Last    string
}

func (e *TimeoutError) Error() string {
	if e.Last == "" {
		return e.What + ": not within " + e.Timeout.String()
	}
	return e.What + ": not within " + e.Timeout.String() + "; last: " + e.Last
}

// Receive returns the next value from ch, and fails tb when timeout passes first (or the test's
// context ends), naming what it waited for: a goroutine's result, or its end (a closed channel).
func Receive[T any](tb testing.TB, timeout time.Duration, what string, ch <-chan T) T {
	tb.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
	case <-tb.Context().Done():
	}
	tb.Fatalf("%s: not within %v", what, timeout)
	var zero T
	return zero
}
