package executor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
)

func TestModes(t *testing.T) {
	action := executor.Action{Kind: executor.DeleteNodeClaim, Object: "nodeclaim/a", Message: "delete nodeclaim a"}
	failure := errors.New("boom")
	for _, tc := range []struct {
		name        string
		mode        executor.Mode
		performErr  error
		calls       int // Do called this many times, the clock still
		wantPerform int
		wantEntries []string
		check       func(error) bool
	}{
		{"live performs and journals each", executor.Live, nil, 2, 2,
			[]string{"delete nodeclaim a", "delete nodeclaim a"}, func(err error) bool { return err == nil }},
		{"live journals a failure", executor.Live, failure, 1, 1,
			[]string{"delete nodeclaim a failed: boom"}, func(err error) bool { return errors.Is(err, failure) }},
		{"dry-run performs nothing and journals once", executor.DryRun, nil, 3, 0,
			[]string{"would delete nodeclaim a"}, executor.NotPerformed},
		{"read-only refuses and journals nothing", executor.ReadOnly, nil, 2, 0,
			nil, func(err error) bool { return errors.Is(err, executor.ErrReadOnly) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := journal.New(100)
			ex := executor.New(tc.mode, nil, nil, j, clocktesting.NewFakeClock(time.Unix(0, 0)))
			performed := 0
			for range tc.calls {
				err := ex.Do(context.Background(), action, func(context.Context) error { performed++; return tc.performErr })
				if !tc.check(err) {
					t.Fatalf("Do returned %v", err)
				}
			}
			if performed != tc.wantPerform {
				t.Errorf("performed %d times, want %d", performed, tc.wantPerform)
			}
			var got []string
			for _, e := range j.Entries(0) {
				if e.Kind != journal.KindAction || e.Reason != journal.Reason(executor.DeleteNodeClaim) || e.DryRun != (tc.mode == executor.DryRun) {
					t.Errorf("entry %+v: want an Action entry of the mode", e)
				}
				got = append(got, e.Message)
			}
			if len(got) != len(tc.wantEntries) {
				t.Fatalf("journal %q, want %q", got, tc.wantEntries)
			}
			for i := range got {
				if got[i] != tc.wantEntries[i] {
					t.Errorf("entry %d = %q, want %q", i, got[i], tc.wantEntries[i])
				}
			}
		})
	}
}

// TestDryRunRepeatsAfterWindow: a decision held back is journaled again once its window passes,
// so a long dry run still shows what it keeps deciding.
func TestDryRunRepeatsAfterWindow(t *testing.T) {
	j := journal.New(100)
	clock := clocktesting.NewFakeClock(time.Unix(0, 0))
	ex := executor.New(executor.DryRun, nil, nil, j, clock)
	a := executor.Action{Kind: executor.Launch, Object: "nodeclaim/a", Message: "launch an instance for nodeclaim a"}
	do := func() {
		_ = ex.Do(context.Background(), a, func(context.Context) error { t.Fatal("performed in dry-run"); return nil })
	}
	do()
	clock.Step(time.Minute)
	do()
	clock.Step(10 * time.Minute)
	do()
	if n := len(j.Entries(0)); n != 2 {
		t.Errorf("%d entries, want 2 (first, and again after the window)", n)
	}
}

// eventCounter is a state.APIWriter that only counts events; its other methods are never called.
type eventCounter struct {
	state.APIWriter
	n int
}

func (c *eventCounter) Event(runtime.Object, string, string, string) { c.n++ }

// TestEventsOnlyLive: a Kubernetes event is a write, so only a live run records one.
func TestEventsOnlyLive(t *testing.T) {
	for mode, want := range map[executor.Mode]int{executor.Live: 1, executor.DryRun: 0, executor.ReadOnly: 0} {
		w := &eventCounter{}
		executor.Events(mode, w).Event(nil, "Normal", "Test", "an event")
		if w.n != want {
			t.Errorf("%s: %d events recorded, want %d", mode, w.n, want)
		}
	}
}
