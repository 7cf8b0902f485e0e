package draw

import (
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func screen(t *testing.T, w, h int) tcell.SimulationScreen {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(w, h)
	t.Cleanup(s.Fini)
	return s
}

// row is what line y of the screen shows, a rune per cell.
func row(s tcell.SimulationScreen, y int) string {
	cells, w, _ := s.GetContents()
	var b strings.Builder
	for _, c := range cells[y*w : (y+1)*w] {
		if len(c.Runes) > 0 {
			b.WriteString(string(c.Runes))
		}
	}
	return b.String()
}

func TestPut(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		w          int
		used       int
		shown      string
	}{
		{"ascii", "nodes", 10, 5, "nodes"},
		{"ascii cut", "nodepools", 4, 4, "node"},
		{"narrow runes", "café…", 10, 5, "café…"},
		{"bars cut", "▇▇▇▇", 2, 2, "▇▇"},
		{"wide runes take two cells", "노드", 10, 4, "노드"},
		{"a wide rune that does not fit is left out", "노드", 3, 2, "노"},
		{"negative width", "nodes", -1, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := screen(t, 10, 1)
			used := Put(s, 0, 0, tc.w, tc.text, tcell.StyleDefault)
			s.Show()
			if used != tc.used {
				t.Errorf("Put used %d cells, want %d", used, tc.used)
			}
			if got := strings.TrimRight(row(s, 0), " "); got != tc.shown {
				t.Errorf("screen shows %q, want %q", got, tc.shown)
			}
			if tc.w >= Width(tc.text) && Width(tc.text) != tc.used {
				t.Errorf("Width(%q) = %d, Put used %d", tc.text, Width(tc.text), tc.used)
			}
		})
	}
}

func TestLineWritesTheWholeWidth(t *testing.T) {
	s := screen(t, 12, 1)
	Put(s, 0, 0, 12, "xxxxxxxxxxxx", tcell.StyleDefault)
	spans := []Span{Text(" np", tcell.StyleDefault), Text("[3]", tcell.StyleDefault.Bold(true))}
	Line(s, 1, 0, 10, tcell.StyleDefault, spans)
	s.Show()
	if got, want := row(s, 0), "x np[3]    x"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
	if SpansWidth(spans) != 6 {
		t.Errorf("SpansWidth = %d, want 6", SpansWidth(spans))
	}
}

func TestBox(t *testing.T) {
	for _, tc := range []struct {
		name       string
		w, h       int
		inner      [4]int
		top, below string
	}{
		{"framed with a centered title", 10, 3, [4]int{1, 1, 8, 1}, "┌── ok ──┐", "└────────┘"},
		{"too small to frame", 1, 3, [4]int{0, 0, 0, 0}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := screen(t, 10, 3)
			x, y, w, h := Box(s, 0, 0, tc.w, tc.h, tcell.StyleDefault, []Span{Text(" ok ", tcell.StyleDefault)})
			s.Show()
			if got := [4]int{x, y, w, h}; got != tc.inner {
				t.Errorf("inner %v, want %v", got, tc.inner)
			}
			if got := strings.TrimSpace(row(s, 0)); got != tc.top {
				t.Errorf("top %q, want %q", got, tc.top)
			}
			if got := strings.TrimSpace(row(s, 2)); got != tc.below {
				t.Errorf("bottom %q, want %q", got, tc.below)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want []string
	}{
		{"drain node a?", 20, []string{"drain node a?"}},
		{"drain node ip-10-0-1-2 now", 12, []string{"drain node", "ip-10-0-1-2", "now"}},
		{"one\ntwo three", 5, []string{"one", "two", "three"}},
		{"averyveryverylongword", 5, []string{"averyveryverylongword"}},
	} {
		if got := Wrap(tc.text, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.text, tc.n, got, tc.want)
		}
	}
}
