package ui_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

var update = flag.Bool("update", false, "rewrite the golden screens under testdata/golden")

// harness drives a console synchronously on a simulation screen.
type harness struct {
	t       testing.TB
	fake    *uitest.Fake
	console *ui.Console
	screen  tcell.SimulationScreen
	// skin names the legend file of its golden screens' styles (testdata/golden/styles/SKIN.txt).
	skin string
}

func newHarness(t testing.TB, b ui.Backend, fake *uitest.Fake, s *skin.Skin, w, h int) *harness {
	t.Helper()
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	screen.SetSize(w, h)
	t.Cleanup(screen.Fini)
	c := ui.New(b, s, ui.Options{Clock: fake.Clock})
	hs := &harness{t: t, fake: fake, console: c, screen: screen, skin: "default"}
	c.Settle()
	return hs
}

// small is a harness on the small generated cluster with the default skin.
func small(t testing.TB, w, h int) *harness {
	t.Helper()
	f := uitest.New(uitest.Small())
	return newHarness(t, f, f, skin.Default(), w, h)
}

// draw settles and draws, and returns the screen's text.
func (h *harness) draw() string {
	h.console.Settle()
	h.console.Draw(h.screen)
	return uitest.Text(h.screen)
}

// keys presses keys: runes as typed, and names in angle brackets (<Enter>, <Esc>, <Tab>,
// <Ctrl-D>, <Down>, <Up>, <Backspace>, <Right>).
func (h *harness) keys(s string) {
	h.t.Helper()
	for len(s) > 0 {
		if strings.HasPrefix(s, "<") {
			end := strings.Index(s, ">")
			if end > 1 {
				if k, ok := namedKeys()[s[1:end]]; ok {
					h.console.HandleKey(tcell.NewEventKey(k, 0, tcell.ModNone))
					s = s[end+1:]
					h.console.Settle()
					continue
				}
			}
		}
		r := []rune(s)[0]
		h.console.HandleKey(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
		s = s[len(string(r)):]
		h.console.Settle()
	}
}

func namedKeys() map[string]tcell.Key {
	return map[string]tcell.Key{"Enter": tcell.KeyEnter, "Esc": tcell.KeyEscape, "Tab": tcell.KeyTab, "Backtab": tcell.KeyBacktab,
		"Ctrl-D": tcell.KeyCtrlD, "Ctrl-S": tcell.KeyCtrlS, "Ctrl-U": tcell.KeyCtrlU, "Down": tcell.KeyDown, "Up": tcell.KeyUp, "Backspace": tcell.KeyBackspace2,
		"Right": tcell.KeyRight, "Left": tcell.KeyLeft, "PgDn": tcell.KeyPgDn}
}

// golden compares the screen (text and colors) with testdata/golden/name.txt. The screen is
// filled with a marker first: a frame must write every cell (tview does not clear it).
func (h *harness) golden(name string) {
	h.t.Helper()
	w, ht := h.screen.Size()
	for y := range ht {
		for x := range w {
			h.screen.SetContent(x, y, '¤', nil, tcell.StyleDefault)
		}
	}
	if screen := h.draw(); strings.ContainsRune(screen, '¤') {
		h.t.Fatalf("the frame left cells unwritten:\n%s", screen)
	}
	legendPath := filepath.Join("testdata", "golden", "styles", h.skin+".txt")
	legend, err := uitest.ReadLegend(legendPath)
	if err != nil {
		h.t.Fatal(err)
	}
	got := uitest.Dump(h.screen, legend)
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := legend.Save(legendPath); err != nil {
			h.t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (run go test ./ui -run %s -update to create it)", err, h.t.Name())
	}
	if string(want) != got {
		h.t.Errorf("screen %s differs from %s (run with -update to accept):\n%s", name, path, diff(string(want), got))
	}
}

// diff shows the first lines that differ.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 8; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + itoa(i+1) + "\n  want: " + wl + "\n  got:  " + gl + "\n")
			shown++
		}
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// mouse does a mouse action on the first screen cell where text starts.
func (h *harness) mouse(action tview.MouseAction, text string) {
	h.t.Helper()
	for y, l := range strings.Split(h.draw(), "\n") {
		if x := strings.Index(l, text); x >= 0 {
			h.console.HandleMouse(action, tcell.NewEventMouse(len([]rune(l[:x])), y, tcell.ButtonNone, tcell.ModNone))
			h.console.Settle()
			return
		}
	}
	h.t.Fatalf("no line shows %q to point at", text)
}
