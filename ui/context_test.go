package ui_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

// The fake's kubeconfig has kind-nodepilot (the console's), prod-eu and staging.
var (
	acting   = ui.Info{Context: "kind-nodepilot", Cluster: "nodepilot-demo", KubernetesVersion: "v1.33.1"}
	dryRun   = ui.Info{Context: "kind-nodepilot", Cluster: "nodepilot-demo", KubernetesVersion: "v1.33.1", DryRun: true}
	readOnly = ui.Info{Context: "kind-nodepilot", Cluster: "nodepilot-demo", KubernetesVersion: "v1.33.1", ReadOnly: true}
)

// TestContextCommand drives :ctx on the simulation screen: the table, completion, the checks
// before a switch, and the confirmation when the autoscaler would act on the new cluster.
func TestContextCommand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		info     ui.Info
		checkErr error
		keys     string
		want     []string // on the screen
		lacks    []string // not on the screen
		checked  bool     // CheckContext was called
	}{
		{name: "lists the contexts, the current marked", info: acting, keys: ":ctx<Enter>",
			want: []string{"Contexts(all)[3]", "kind-nodepilot *", "prod-eu", "staging", "<Enter>switch"}, lacks: []string{"<d>describe"}},
		{name: "alias :context", info: acting, keys: ":context<Enter>", want: []string{"Contexts(all)[3]"}},
		{name: "Tab completes the first context", info: acting, keys: ":ctx <Tab>", want: []string{" :ctx kind-nodepilot"}},
		{name: "Tab takes the completion", info: dryRun, keys: ":ctx <Tab><Enter>", want: []string{"already on context kind-nodepilot"}},
		{name: "Tab completes a prefix", info: dryRun, checkErr: errors.New("refused"), keys: ":ctx st<Tab><Enter>",
			want: []string{"not switching: context staging: refused"}, checked: true},
		{name: "Tab completes after the alias", info: dryRun, checkErr: errors.New("refused"), keys: ":context pr<Tab><Enter>",
			want: []string{"not switching: context prod-eu: refused"}, checked: true},
		{name: "unknown context", info: dryRun, keys: ":ctx nosuch<Enter>",
			want: []string{`no context "nosuch" in the kubeconfig; contexts: kind-nodepilot, prod-eu, staging`}},
		{name: "the current context", info: acting, keys: ":ctx kind-nodepilot<Enter>", want: []string{"already on context kind-nodepilot"}, lacks: []string{"Switch context"}},
		{name: "two names", info: acting, keys: ":ctx a b<Enter>", want: []string{":ctx: names one context"}},
		{name: "acting mode asks first", info: acting, keys: ":ctx staging<Enter>",
			want: []string{"Switch context", "Switch to context staging? The autoscaler runs there live,", "as here (neither --dry-run nor --readonly): it will", "provision and consolidate nodes in that cluster.", "Cancel"}},
		{name: "paused asks too: a new autoscaler runs unpaused", info: ui.Info{Context: "kind-nodepilot", Paused: true}, keys: ":ctx staging<Enter>",
			want: []string{"Switch to context staging?"}},
		{name: "Cancel stays", info: acting, keys: ":ctx staging<Enter><Esc>", want: []string{"Switch context cancelled"}, lacks: []string{"Switch to context"}},
		{name: "confirmed, the check fails", info: acting, checkErr: errors.New("connection refused"), keys: ":ctx staging<Enter>y",
			want: []string{"not switching: context staging: connection refused"}, checked: true},
		{name: "dry-run checks without asking", info: dryRun, checkErr: errors.New("connection refused"), keys: ":ctx prod-eu<Enter>",
			want: []string{"not switching: context prod-eu: connection refused"}, lacks: []string{"Switch to context"}, checked: true},
		{name: "read-only: Enter on a row, no dialog", info: readOnly, checkErr: errors.New("i/o timeout"), keys: ":ctx<Enter><Down><Down><Enter>",
			want: []string{"not switching: context staging: i/o timeout"}, lacks: []string{"Switch to context"}, checked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := uitest.New(uitest.Small())
			f.SetInfo(tc.info)
			f.FailCheckContext(tc.checkErr)
			h := newHarness(t, f, f, skin.Default(), 140, 30)
			h.keys(tc.keys)
			h.has(tc.want...)
			h.lacks(tc.lacks...)
			if checked := slices.ContainsFunc(f.Calls(), func(c string) bool { return strings.HasPrefix(c, "check context ") }); checked != tc.checked {
				t.Errorf("CheckContext called: %v, want %v (calls %v)", checked, tc.checked, f.Calls())
			}
		})
	}
}

// TestContextSwitchRereadsTheKubeconfig: :ctx NAME reads the kubeconfig again, so a context
// removed since the table was read is refused with the contexts there are, and nothing is
// checked.
func TestContextSwitchRereadsTheKubeconfig(t *testing.T) {
	f := uitest.New(uitest.Small())
	f.SetInfo(dryRun)
	h := newHarness(t, f, f, skin.Default(), 140, 30)
	h.keys(":ctx<Enter>")
	h.has("staging")
	f.SetContexts("kind-nodepilot", "prod-eu")
	h.keys(":ctx staging<Enter>")
	h.has(`no context "staging" in the kubeconfig; contexts: kind-nodepilot, prod-eu`)
	if slices.Contains(f.Calls(), "check context staging") {
		t.Errorf("checked a context that is gone: %v", f.Calls())
	}
}

// TestDemoRefusesContextSwitch: the demo's console says why it does not switch, before asking
// anything.
func TestDemoRefusesContextSwitch(t *testing.T) {
	d := uitest.NewDemo(uitest.Small())
	info := acting
	info.NoSwitch = "the demo runs on its own local cluster: quit, and run nodepilot --context NAME"
	d.SetInfo(info)
	h := newHarness(t, d, d.Fake, skin.Default(), 140, 30)
	h.keys(":ctx staging<Enter>")
	h.has("the demo runs on its own local cluster: quit, and run nodepilot --context NAME")
	h.lacks("Switch to context")
}

// TestOpeningFlash: a console opened after a failed switch says why.
func TestOpeningFlash(t *testing.T) {
	f := uitest.New(uitest.Small())
	c := ui.New(f, skin.Default(), ui.Options{Clock: f.Clock, Flash: "switching to context staging failed: no cluster name"})
	h := &harness{t: t, fake: f, console: c, screen: newScreen(t, 140, 30), skin: "default"}
	h.has("switching to context staging failed: no cluster name")
}

func newScreen(t *testing.T, w, h int) tcell.SimulationScreen {
	t.Helper()
	screen, err := uitest.NewScreen(w, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(screen.Fini)
	return screen
}

// TestRunReturnsSwitchContext: once a switch is confirmed (or needs no confirmation) and the
// context answers, Run ends with SwitchContext naming it.
func TestRunReturnsSwitchContext(t *testing.T) {
	for _, tc := range []struct {
		name string
		info ui.Info
		// steps are keys to inject (\n is Enter, ↓ Down), each once the screen shows its text.
		steps [][2]string
		want  string
	}{
		{name: "dry-run, no dialog", info: dryRun, steps: [][2]string{{"Pending(why)", ":ctx staging\n"}}, want: "staging"},
		{name: "acting, confirmed", info: acting, steps: [][2]string{{"Pending(why)", ":ctx prod-eu\n"}, {"Switch to context prod-eu?", "y"}}, want: "prod-eu"},
		{name: "read-only, Enter on a row", info: readOnly, steps: [][2]string{{"Pending(why)", ":ctx\n"}, {"staging", "↓↓\n"}}, want: "staging"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := uitest.New(uitest.Small())
			f.SetInfo(tc.info)
			screen, done := running(t, context.Background(), f)
			for _, step := range tc.steps {
				awaitText(t, screen, step[0])
				for _, r := range step[1] {
					switch r {
					case '\n':
						screen.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
					case '↓':
						screen.InjectKey(tcell.KeyDown, 0, tcell.ModNone)
					default:
						screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
					}
				}
			}
			select {
			case err := <-done:
				var sw ui.SwitchContext
				if !errors.As(err, &sw) || sw.Name != tc.want {
					t.Fatalf("Run = %v, want SwitchContext{%s}", err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return after the switch")
			}
		})
	}
}
