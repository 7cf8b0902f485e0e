package ui_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/ui/uitest"
	"github.com/nodepilot/nodepilot/usage"
)

// screenHas fails unless the screen shows every text.
func (h *harness) has(texts ...string) {
	h.t.Helper()
	screen := h.draw()
	for _, s := range texts {
		if !strings.Contains(screen, s) {
			h.t.Fatalf("the screen does not show %q:\n%s", s, screen)
		}
	}
}

// lacks fails if the screen shows any text.
func (h *harness) lacks(texts ...string) {
	h.t.Helper()
	screen := h.draw()
	for _, s := range texts {
		if strings.Contains(screen, s) {
			h.t.Fatalf("the screen shows %q:\n%s", s, screen)
		}
	}
}

// line is the screen line that contains s.
func (h *harness) line(s string) string {
	h.t.Helper()
	for _, l := range strings.Split(h.draw(), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	h.t.Fatalf("no line shows %q", s)
	return ""
}

func TestCommandModeCompletesAliasesAndHistory(t *testing.T) {
	h := small(t, 140, 30)
	h.keys(":nodec")
	h.has(":nodeclaims")
	h.keys("<Tab><Enter>")
	h.has("NodeClaims(all)[12]", "  nodeclaims")
	h.keys(":np<Enter>")
	h.has("NodePools(all)[3]")
	h.keys(":po<Enter>")
	h.has("Pods(all)[53]")
	h.keys(":<Up>")
	h.has(" :po")
	h.keys("<Up>")
	h.has(" :np")
	h.keys("<Up>")
	h.has(" :nodeclaims")
	h.keys("<Down><Down>")
	h.has(" :po")
	h.keys("<Esc>")
	h.lacks(" :po")
	h.keys(":nosuch<Enter>")
	h.has("unknown command :nosuch")
	h.keys(": <Tab><Enter>") // blank: nothing to complete, nothing to run
	h.has("Pods(all)[53]")
	h.keys(":dash<Enter>")
	h.has("Pending(why)[5]", "Interruptions(spot)[4]")
}

func TestFilter(t *testing.T) {
	h := small(t, 140, 40)
	h.keys(":pods<Enter>/web")
	h.has("Pods(all)[12/53] </web>")
	h.keys("<Enter>")
	h.has("Pods(all)[12/53] </web>")
	h.lacks("worker-", "inflate-")
	h.keys("<Esc>")
	h.has("Pods(all)[53]")
	h.keys("/!web|api<Enter>")
	h.has("Pods(all)[29/53]", "worker-")
	h.lacks("web-7d9f8c6b5", "api-")
	h.keys("<Esc>/-l app=worker<Enter>")
	h.has("Pods(all)[12/53] </-l app=worker>")
	h.lacks("web-7d9f8c6b5")
	h.keys("<Esc>/web(")
	h.has("Pods(all)[12/53] </web>") // the last valid filter while typing
	h.keys("<Enter>")
	h.has("filter \"web(\": error parsing regexp")
	h.has("Pods(all)[53]")
	h.keys("/api<Esc>")
	h.has("Pods(all)[53]")
}

func TestDrillDownAndBack(t *testing.T) {
	h := small(t, 140, 40)
	h.keys(":np<Enter><Enter>")
	h.has("Nodes(default)[8]", " nodepools ", " nodepool default")
	h.lacks("ip-10-0-0-18.ec2.internal") // an on-demand pool's node
	h.keys("<Down><Enter>")
	h.has("Pods(ip-10-0-0-10.ec2.internal)[5]")
	h.keys("<Esc>")
	h.has("Nodes(default)[8]")
	h.keys("<Esc>")
	h.has("NodePools(all)[3]")
	h.keys("<Esc>")
	h.has("NodePools(all)[3]")

	h.keys(":decisions<Enter>/SingleNode<Enter><Enter>")
	h.has("Touched(#", "Node  ip-10-0-0-17.ec2.internal", "Pod   shop/web-")
	h.keys("<Enter>")
	h.has("Pods(ip-10-0-0-17.ec2.internal)")
}

func TestExplain(t *testing.T) {
	h := small(t, 150, 44)
	h.keys(":pending<Enter>/kn5zr<Enter>x")
	h.has("Why no NodePool can take it", "NodePool gpu  TaintNotTolerated", "712  excluded by the NodePool's requirement", "fix: lower the pod's requests")
	if !slices.Contains(h.fake.Calls(), "explain pod default/inflate-5c6d7e8f9-kn5zr") {
		t.Errorf("the explainer was not asked: %v", h.fake.Calls())
	}
	h.keys("<Esc><Esc>")
	h.keys(":nodes<Enter>/ip-10-0-0-10<Enter>x")
	h.has("blocked: ConsolidateAfter", "consolidateAfter passes in 42s", "replace with c6i.large", "saves $0.014/h")
	h.fake.Advance(12 * time.Second)
	h.has("consolidateAfter passes in 30s")
	h.keys("<Esc><Esc>:np<Enter><Down>x")
	h.has("NodePool gpu", "Disruptions allowed now", `budget #1 (nodes "0") of nodepool "gpu" allows 0 more Underutilized`)

	h.fake.FailExplanations(errors.New("the explainer is down"))
	h.keys(":pending<Enter>x")
	h.has("the explainer is down")
}

func TestConfirmDialogs(t *testing.T) {
	h := small(t, 140, 40)
	h.keys(":nodes<Enter>/ip-10-0-0-16<Enter>r")
	h.has("Drain node ip-10-0-0-16.ec2.internal?", "Cancel", "Drain")
	h.keys("<Esc>")
	h.lacks("Drain node")
	h.has("Drain cancelled")
	h.keys("r<Enter>")
	h.has("Drain cancelled")
	h.keys("r<Tab><Enter>")
	h.has("draining node ip-10-0-0-16.ec2.internal")
	if !slices.Contains(h.fake.Calls(), "drain ip-10-0-0-16.ec2.internal") {
		t.Fatalf("not drained: %v", h.fake.Calls())
	}
	h.has("Cordoned")

	h.keys("<Ctrl-D>")
	h.has("Delete NodeClaim on-demand-")
	h.keys("n")
	h.has("Delete cancelled")
	h.keys("<Ctrl-D>y")
	calls := h.fake.Calls()
	if last := calls[len(calls)-1]; !strings.HasPrefix(last, "delete nodeclaim on-demand-") {
		t.Fatalf("not deleted: %v", calls)
	}
	h.has("Disrupting")
}

func TestCordonAndUncordon(t *testing.T) {
	h := small(t, 140, 40)
	h.keys(":nodes<Enter>/ip-10-0-0-20<Enter>c")
	h.has("cordoned node ip-10-0-0-20.ec2.internal")
	if l := h.line("ip-10-0-0-20.ec2.internal m6i"); !strings.Contains(l, "Cordoned") {
		t.Fatalf("not cordoned: %s", l)
	}
	h.keys("u")
	if l := h.line("ip-10-0-0-20.ec2.internal m6i"); !strings.Contains(l, "Ready") {
		t.Fatalf("not uncordoned: %s", l)
	}
	if got := strings.Join(h.fake.Calls(), "; "); got != "cordon ip-10-0-0-20.ec2.internal true; cordon ip-10-0-0-20.ec2.internal false" {
		t.Errorf("calls: %s", got)
	}
}

func TestReadOnlyHidesDangerousKeys(t *testing.T) {
	f := uitest.New(uitest.Small())
	f.SetInfo(ui.Info{Context: "prod", ReadOnly: true})
	h := newHarness(t, f, f, skin.Default(), 160, 66)
	h.keys(":nodes<Enter>")
	hints := h.line("<Enter>pods")
	for _, k := range []string{"<c>", "<u>", "<r>", "<Ctrl-D>", "<p>"} {
		if strings.Contains(hints, k) {
			t.Errorf("read-only hints show %s: %s", k, hints)
		}
	}
	for _, k := range []string{"c", "u", "r", "<Ctrl-D>", "p"} {
		h.keys(k)
		h.lacks("Drain node", "Delete NodeClaim")
	}
	h.has("is disabled: read-only (--readonly writes nothing)")
	if calls := h.fake.Calls(); len(calls) > 0 {
		t.Errorf("read-only called the backend: %v", calls)
	}
	h.keys("?")
	h.has("Keys of nodes", "<Shift-C>", "Actions that change the cluster are off: read-only")
	h.lacks("cordon the selected node", "drain the selected node", "pause or resume")
}

// TestHeaderSaysWhyNoPrices: read-only without AWS, the header says prices are unknown and why,
// instead of a dash that looks like a fleet with no cost.
func TestHeaderSaysWhyNoPrices(t *testing.T) {
	for _, tc := range []struct {
		name string
		info ui.Info
		want string
	}{
		{"without AWS", ui.Info{ReadOnly: true, NoCloud: "no AWS credentials"}, "Prices: unknown: AWS not configured (no AWS credentials)"},
		{"with AWS", ui.Info{ReadOnly: true}, "Prices: pricing-api, synthetic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := uitest.New(uitest.Small())
			f.SetInfo(tc.info)
			h := newHarness(t, f, f, skin.Default(), 200, 40)
			h.has(tc.want)
		})
	}
}

func TestDryRunKeepsPauseButNotWrites(t *testing.T) {
	f := uitest.New(uitest.Small())
	f.SetInfo(ui.Info{DryRun: true})
	h := newHarness(t, f, f, skin.Default(), 160, 40)
	h.keys(":nodes<Enter>")
	hints := h.line("<Enter>pods")
	if strings.Contains(hints, "<c>") || !strings.Contains(hints, "<p>pause") {
		t.Errorf("dry-run hints: %s", hints)
	}
	h.keys("c")
	h.has("cordon is disabled: dry-run (--dry-run changes nothing)")
	h.keys("p")
	h.has("Autoscaler: dry-run, paused")
}

func TestPause(t *testing.T) {
	h := small(t, 140, 30)
	h.keys("p")
	h.has("Autoscaler: paused", "<p>resume", "autoscaler paused")
	h.keys("p")
	h.has("Autoscaler: running", "<p>pause", "autoscaler resumed")
	if got := strings.Join(h.fake.Calls(), ","); got != "pause,resume" {
		t.Errorf("calls: %s", got)
	}
}

func TestSortKeepsGroups(t *testing.T) {
	h := small(t, 160, 40)
	h.keys(":nodes<Enter>C")
	h.has("$/H↓")
	screen := h.draw()
	// Within spot/us-east-1b the dearest node comes first.
	if i, j := strings.Index(screen, "ip-10-0-0-20.ec2.internal"), strings.Index(screen, "ip-10-0-0-11.ec2.internal"); i > j {
		t.Errorf("not sorted by cost within the zone:\n%s", screen)
	}
	h.keys("C")
	h.has("$/H↑")
}

func TestCursorStaysOnItsObject(t *testing.T) {
	h := small(t, 140, 40)
	h.keys(":pods<Enter>/worker<Enter><Down><Down><Down>")
	h.keys("d")
	want := h.line("Describe batch/")
	h.keys("<Esc>")
	h.fake.Churn(200)
	h.keys("d")
	if got := h.line("Describe batch/"); got != want {
		t.Errorf("the cursor moved: %q, was %q", got, want)
	}
}

func TestDemoKeys(t *testing.T) {
	d := uitest.NewDemo(uitest.Small())
	h := newHarness(t, d, d.Fake, skin.Default(), 160, 40)
	h.has("Demo: act 2 of 4", "autoplay on (a)", "<+>scale up", "<->scale down", "<a>autoplay")
	h.keys("+")
	h.has("scaled default/inflate by +1", "Pending: 6")
	h.keys(":pods<Enter>/web-<Enter>-")
	h.has("scaled shop/web by -1")
	h.keys(":nodes<Enter>/ip-10-0-0-18<Enter>i")
	h.has("i interrupts spot nodes")
	h.keys("<Esc>/ip-10-0-0-15<Enter>i")
	h.has("spot interruption sent for ip-10-0-0-15.ec2.internal")
	h.keys("a")
	h.has("autoplay off (a)", "autoplay off: drive it with + - i")
	want := []string{"scale default/inflate +1", "scale shop/web -1", "interrupt ip-10-0-0-15.ec2.internal", "autoplay false"}
	if got := d.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}

func TestSkinsSwapLive(t *testing.T) {
	h := small(t, 120, 30)
	h.console.Draw(h.screen)
	dark := uitest.Dump(h.screen, uitest.NewLegend())
	h.keys(":skins<Enter>/light<Enter><Enter>")
	h.has("skin light", "light *")
	h.keys(":dash<Enter>")
	h.console.Draw(h.screen)
	if light := uitest.Dump(h.screen, uitest.NewLegend()); light == dark {
		t.Fatal("the skin did not change")
	}

	h.console.SetSkin(nil, errors.New(`light.yaml: k9s.body.fgColor: "notacolor" is not a color`))
	h.has("skin not applied, keeping the current one")
	d, err := skin.LoadShipped("default")
	if err != nil {
		t.Fatal(err)
	}
	h.console.SetSkin(d, nil)
	h.has("skin reloaded")
	h.keys("<Esc>")
	h.console.Draw(h.screen)
	if got := uitest.Dump(h.screen, uitest.NewLegend()); !strings.Contains(got, "fg=#1E90FF bg=#000000") {
		t.Errorf("the default skin is not back")
	}
}

func TestNarrowDashboardCyclesPanes(t *testing.T) {
	h := small(t, 90, 30)
	for _, title := range []string{"Pending(why)", "NodePools(usage)", "Nodes(capacity type, zone)", "Decisions(disruption)", "Interruptions(spot)", "Pending(why)"} {
		h.has(title)
		h.keys("<Tab>")
	}
	h.keys("<Backtab>")
	h.has("Pending(why)")
}

// unsynced serves a snapshot taken before the informers synced.
type unsynced struct{ *uitest.Fake }

func (u unsynced) Snapshot() *state.Snapshot {
	s := *u.Fake.Snapshot()
	s.Synced = false
	return &s
}

func TestHeaderSaysWhileSyncing(t *testing.T) {
	f := uitest.New(uitest.Small())
	h := newHarness(t, unsynced{f}, f, skin.Default(), 160, 30)
	h.has("syncing with the API server")
	h2 := newHarness(t, f, f, skin.Default(), 160, 30)
	h2.lacks("syncing")
}

// TestUsageColumnsSayWhyTheyAreEmpty: without figures from metrics.k8s.io the usage cells are
// dashes and the tables that show them say why in their title; old figures stay, with why.
func TestUsageColumnsSayWhyTheyAreEmpty(t *testing.T) {
	gone := "metrics.k8s.io is not served: install metrics-server (kubectl top needs it too)"
	stale := "metrics-server is not answering (its APIService is unavailable): check its pod and logs in kube-system; figures from 2m ago"
	for _, tc := range []struct {
		name      string
		usage     *usage.Snapshot
		keys      string
		has, lack []string
	}{
		{"nodes, not served", &usage.Snapshot{Status: gone}, ":nodes<Enter>", []string{"Nodes(all)[12] usage: " + gone}, []string{"761m 19%"}},
		{"pods, not served", &usage.Snapshot{Status: gone}, ":pods<Enter>", []string{"Pods(all)[53] usage: " + gone}, []string{"418m"}},
		{"nodepools, stale", &usage.Snapshot{Status: stale, Time: uitest.Now().Add(-2 * time.Minute), Nodes: map[string]usage.Use{"ip-10-0-0-10.ec2.internal": {CPU: 1500, Mem: 2 << 30}}},
			":np<Enter>", []string{"usage: " + stale, "1.5 "}, nil},
		{"the dashboard's panes show no usage, so no note", &usage.Snapshot{Status: gone}, "", nil, []string{"usage:"}},
		{"figures", nil, ":nodes<Enter>", []string{"761m 19%"}, []string{"usage:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := uitest.New(uitest.Small())
			f.SetUsage(tc.usage)
			h := newHarness(t, f, f, skin.Default(), 260, 30)
			h.keys(tc.keys)
			h.has(tc.has...)
			h.lacks(tc.lack...)
		})
	}
}

// TestRightSizing: :rightsizing asks the backend off the UI goroutine, again once a minute
// while shown; d explains a workload's fit with the command that applies it; a failure says why.
func TestRightSizing(t *testing.T) {
	f := uitest.New(uitest.Small())
	h := newHarness(t, f, f, skin.Default(), 220, 40)
	h.keys(":rs<Enter>")
	h.has("RightSizing(all)[4] planned from nothing: $0.538/h on 4 nodes as requested, $0.463/h on 4 right-sized")
	h.fake.Advance(30 * time.Second)
	h.draw()
	h.fake.Advance(31 * time.Second)
	h.draw()
	if n := strings.Count(strings.Join(f.Calls(), "\n"), "right-sizing"); n != 2 {
		t.Errorf("%d right-sizings in 61 seconds, want 2 (at once and after a minute): %v", n, f.Calls())
	}
	h.keys("/inflate<Enter>d")
	h.has("Workload Deployment default/inflate", "fits: cpu 451m, memory 429Mi",
		"kubectl -n default set resources deployment/inflate -c app --requests=cpu=451m,memory=429Mi")

	failing := uitest.New(uitest.Small())
	failing.FailExplanations(errors.New("AWS is unreachable"))
	h = newHarness(t, failing, failing, skin.Default(), 200, 20)
	h.keys(":rs<Enter>")
	h.has("RightSizing(all)[0] right-sizing: AWS is unreachable")
	failing.FailExplanations(nil)
	failing.Advance(10 * time.Second)
	h.has("RightSizing(all)[4] planned from nothing")
}

// TestCommandsWithArguments: ":" commands take k9s's arguments: a capacity type, zone or
// NodePool for nodes, a namespace or label selector for pods, a NodePool to drill into, a name
// to explain; they complete from the cluster and refuse what they cannot use, saying why.
func TestCommandsWithArguments(t *testing.T) {
	h := small(t, 160, 44)
	for _, tc := range []struct {
		keys       string
		has, lacks []string
	}{
		{":nodes spot<Enter>", []string{"Nodes(spot)[7/12]", "ip-10-0-0-10.ec2.internal"}, []string{"ip-10-0-0-18.ec2.internal"}},
		{":nodes us-east-1a<Enter>", []string{"Nodes(us-east-1a)[4/12]", "ip-10-0-0-18.ec2.internal"}, []string{"us-east-1b", "us-east-1c"}},
		{":no spot us-east-1b<Enter>", []string{"Nodes(spot us-east-1b)[3/12]", "ip-10-0-0-20.ec2.internal"}, []string{"ip-10-0-0-10.ec2.internal"}},
		{":nodes on-demand<Enter>", []string{"Nodes(on-demand)[5/12]", "ip-10-0-0-18.ec2.internal"}, []string{"ip-10-0-0-10.ec2.internal"}},
		{":pods -n shop<Enter>", []string{"Pods(shop)[24]", "web-7d9f8c6b5-6mxdh"}, []string{"inflate-"}},
		{":po shop /web<Enter>", []string{"Pods(shop /web)[12/24]"}, []string{"api-7d9f8c6b5"}},
		{":pods -l app=worker<Enter>", []string{"Pods(app=worker)[12/53]"}, []string{"web-7d9f8c6b5"}},
		{":np default<Enter>", []string{"Nodes(default)[8]", " nodepool default"}, nil},
		{"<Esc>", []string{"NodePools(all)[3]"}, nil},
		{":np de", []string{":np default"}, nil},
		{"<Tab><Enter>", []string{"Nodes(default)[8]"}, nil},
		{":nodes us-east-1", []string{":nodes us-east-1a"}, nil},
		{"<Esc>:explain ip-10-0-0-10.ec2.internal<Enter>", []string{"blocked: ConsolidateAfter", "replace with c6i.large"}, nil},
		{":explain default/inflate-5c6d7e8f9-kn5zr<Enter>", []string{"Why no NodePool can take it"}, nil},
		{":x gpu<Enter>", []string{"NodePool gpu", "Disruptions allowed now"}, nil},
		{":nodes nosuch<Enter>", []string{`:nodes: "nosuch" is no capacity type (spot, on-demand, reserved), zone or NodePool`}, nil},
		{":np nosuch<Enter>", []string{`:nodepools: no NodePool "nosuch"`}, nil},
		{":nodes -n shop<Enter>", []string{":nodes: -n shop: only pods have namespaces"}, nil},
		{":pods -l<Enter>", []string{":pods: -l needs a value"}, nil},
		{":nodes spot /ip-10<Enter>", []string{":nodes: a label selector and a /REGEX cannot filter together: pick one"}, nil},
		{":dash now<Enter>", []string{`:dashboard: takes no arguments, got "now"`}, nil},
		{":explain nosuch<Enter>", []string{`:explain: no pod, node or NodePool named "nosuch"`}, nil},
	} {
		h.keys(tc.keys)
		h.has(tc.has...)
		h.lacks(tc.lacks...)
	}
}

// TestMouse: a click selects the row under the pointer and makes its dashboard pane the active
// one, a double click opens it as Enter does, the wheel moves the selection three rows or
// scrolls a text; a click on a header selects nothing new.
func TestMouse(t *testing.T) {
	h := small(t, 160, 44)
	h.mouse(tview.MouseLeftClick, "ip-10-0-0-13.ec2.internal")
	h.keys("d")
	h.has("Describe ip-10-0-0-13.ec2.internal")
	h.keys("<Esc>")
	h.mouse(tview.MouseLeftDoubleClick, "ip-10-0-0-13.ec2.internal")
	h.has("Pods(ip-10-0-0-13.ec2.internal)[5]")
	h.keys("<Esc>:pods<Enter>")
	// The pods as listed: the wheel takes the selection from the first to the fourth.
	var listed []string
	for _, l := range strings.Split(h.draw(), "\n") {
		if f := strings.Fields(strings.Trim(l, "│ ")); len(f) > 2 && strings.Contains(l, "/1 ") {
			listed = append(listed, f[0]+"/"+f[1])
		}
	}
	if len(listed) < 5 {
		t.Fatalf("pods listed: %v", listed)
	}
	h.mouse(tview.MouseScrollDown, listed[0][strings.Index(listed[0], "/")+1:])
	h.keys("d")
	h.has("Describe " + listed[3])
	h.keys("<Esc>?")
	h.has("Keys of pods")
	h.mouse(tview.MouseScrollDown, "Keys of pods")
	h.lacks("Keys of pods") // the help scrolled by three lines
	h.keys("<Esc>")
	h.mouse(tview.MouseLeftClick, "NAMESPACE")
	h.keys("d")
	h.has("Describe " + listed[3])
}
