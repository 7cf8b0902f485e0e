package ui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

// running starts Run on a simulation screen and returns the screen and Run's result.
func running(t *testing.T, ctx context.Context, f *uitest.Fake) (tcell.SimulationScreen, <-chan error) {
	t.Helper()
	screen, err := uitest.NewScreen(140, 40)
	if err != nil {
		t.Fatal(err)
	}
	c := ui.New(f, skin.Default(), ui.Options{Clock: f.Clock, Screen: screen, FrameInterval: 10 * time.Millisecond})
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	return screen, done
}

// awaitText waits until the screen shows text.
func awaitText(t *testing.T, screen tcell.SimulationScreen, text string) {
	t.Helper()
	eventually.True(t, 10*time.Second, fmt.Sprintf("the screen showing %q", text), func(context.Context) (bool, string) {
		screenText := uitest.Text(screen)
		return strings.Contains(screenText, text), "\n" + screenText
	})
}

func TestRunQuitsOnCommand(t *testing.T) {
	f := uitest.New(uitest.Small())
	screen, done := running(t, context.Background(), f)
	awaitText(t, screen, "Pending(why)[5]")
	f.Churn(3)
	for _, r := range ":q" {
		screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	screen.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after :q")
	}
}

func TestRunFollowsTheClusterAndStopsWithItsContext(t *testing.T) {
	d := uitest.NewDemo(uitest.Small())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	screen, done := running(t, ctx, d.Fake)
	awaitText(t, screen, "Pending: 5")
	if err := d.Scale(ctx, "default/inflate", 2); err != nil {
		t.Fatal(err)
	}
	awaitText(t, screen, "Pending: 7")
	screen.InjectKey(tcell.KeyRune, ':', tcell.ModNone)
	for _, r := range "nodes" {
		screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	screen.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	awaitText(t, screen, "Nodes(all)[12]")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return when its context ended")
	}
}
