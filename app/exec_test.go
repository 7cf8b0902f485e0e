package app

import (
	"context"
	"strings"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/ui"
)

// TestExecIsAnExecutorAction: the console's shell goes through the executor, so read-only refuses
// it and dry-run journals that it would run it, neither dialing the cluster (the App here has no
// clients: a dial would fail otherwise).
func TestExecIsAnExecutorAction(t *testing.T) {
	for _, tc := range []struct {
		mode      executor.Mode
		refused   func(error) bool
		journaled string
	}{
		{executor.ReadOnly, func(err error) bool { return strings.Contains(err.Error(), executor.ErrReadOnly.Error()) }, ""},
		{executor.DryRun, executor.NotPerformed, `would exec "sh -i" in pod shop/web-0 container "web" (console)`},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC))
			j := journal.New(10)
			c := &Console{app: &App{Journal: j, Executor: executor.New(tc.mode, nil, nil, j, clk)}}
			err := c.Exec(context.Background(), "shop", "web-0", ui.ExecOptions{Container: "web", Command: []string{"sh", "-i"}})
			if err == nil || !tc.refused(err) {
				t.Fatalf("exec in %s: %v, want it refused", tc.mode, err)
			}
			var messages []string
			for _, e := range j.Entries(0) {
				messages = append(messages, e.Message)
			}
			if got := strings.Join(messages, "\n"); got != tc.journaled {
				t.Errorf("journal %q, want %q", got, tc.journaled)
			}
		})
	}
}
