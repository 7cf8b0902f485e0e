package demo

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodepilot/nodepilot/engine/journal"
)

// TestStoryPlays plays the demo's story once through on the real control plane and the
// emulator: every act finishes (none gives up), consolidation removes inflate's node and a
// spot interruption is handled.
func TestStoryPlays(t *testing.T) {
	ctx, env := runDemo(t, 12*time.Minute)
	story := env.NewStory(true)
	go story.Run(ctx)
	var seen []string
	for !strings.HasPrefix(story.Status(), "act 6 of 6") {
		status := story.Status()
		// The elapsed seconds tick every second: a line is kept when the rest changes.
		if len(seen) == 0 || elapsed.ReplaceAllString(seen[len(seen)-1], "") != elapsed.ReplaceAllString(status, "") {
			seen = append(seen, status)
		}
		if strings.Contains(status, "gave up") {
			t.Fatalf("an act gave up: %s\nstory so far:\n%s\njournal:\n%s", status, strings.Join(seen, "\n"), journalTail(env))
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the story did not finish: %s\nstory so far:\n%s\njournal:\n%s", status, strings.Join(seen, "\n"), journalTail(env))
		case <-time.After(200 * time.Millisecond):
		}
	}
	var consolidated, interrupted bool
	for _, e := range env.App.Journal.Entries(0) {
		consolidated = consolidated || (e.Kind == journal.KindDisruption && e.Decision != "" && !e.DryRun)
		interrupted = interrupted || (e.Kind == journal.KindInterruption && e.Reason == "SpotInterruption")
	}
	if !consolidated || !interrupted {
		t.Errorf("consolidation decided: %v, spot interruption handled: %v; story:\n%s", consolidated, interrupted, strings.Join(seen, "\n"))
	}
}

// elapsed is the "(12s)" of a story's status.
var elapsed = regexp.MustCompile(` \(\d+s\)`)

// journalTail is the journal's last 60 entries, one a line, for a failure's message.
func journalTail(env *Environment) string {
	var lines []string
	for _, e := range env.App.Journal.Entries(0) {
		lines = append(lines, fmt.Sprintf("%s %s %s %s %v: %s", e.Time.Format(time.TimeOnly), e.Kind, e.Method, e.Reason, e.Nodes, e.Message))
	}
	return strings.Join(lines[max(0, len(lines)-60):], "\n")
}
