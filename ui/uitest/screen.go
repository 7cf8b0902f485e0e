package uitest

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gdamore/tcell/v2"
)

// styleLetters name the styles of a dump, in order of first appearance.
const styleLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./;<=>?@[]^_{|}~"

// Text is what a simulation screen shows, one line per row, trailing spaces trimmed.
func Text(s tcell.SimulationScreen) string {
	cells, w, h := contents(s)
	var b strings.Builder
	for y := range h {
		b.WriteString(strings.TrimRight(row(cells[y*w:(y+1)*w]), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// Dump is a simulation screen as text and colors: the text, then one letter per cell naming
// its style, then the legend of the letters. Golden files store it.
func Dump(s tcell.SimulationScreen) string {
	cells, w, h := contents(s)
	var b strings.Builder
	b.WriteString(Text(s))
	b.WriteString("--- styles\n")
	letters := map[tcell.Style]byte{}
	var legend []string
	for y := range h {
		for _, c := range cells[y*w : (y+1)*w] {
			l, ok := letters[c.Style]
			if !ok {
				i := len(letters)
				if i >= len(styleLetters) {
					i = len(styleLetters) - 1
				}
				l = styleLetters[i]
				letters[c.Style] = l
				legend = append(legend, fmt.Sprintf("%c %s", l, describe(c.Style)))
			}
			b.WriteByte(l)
		}
		b.WriteByte('\n')
	}
	b.WriteString("--- legend\n")
	b.WriteString(strings.Join(legend, "\n"))
	b.WriteByte('\n')
	return b.String()
}

func row(cells []tcell.SimCell) string {
	var b strings.Builder
	for _, c := range cells {
		switch {
		case len(c.Runes) > 0:
			b.WriteString(string(c.Runes))
		case len(c.Bytes) > 0:
			b.Write(c.Bytes)
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func describe(st tcell.Style) string {
	fg, bg, attr := st.Decompose()
	s := "fg=" + color(fg) + " bg=" + color(bg)
	for _, a := range []struct {
		mask tcell.AttrMask
		name string
	}{{tcell.AttrBold, "bold"}, {tcell.AttrDim, "dim"}, {tcell.AttrReverse, "reverse"}, {tcell.AttrUnderline, "underline"}, {tcell.AttrItalic, "italic"}} {
		if attr&a.mask != 0 {
			s += " " + a.name
		}
	}
	return s
}

func color(c tcell.Color) string {
	if c == tcell.ColorDefault || !c.Valid() {
		return "default"
	}
	return c.CSS()
}

// NewScreen returns an initialized simulation screen of w×h cells for a running console: it
// ignores later calls to Init (tview's Application.SetScreen initializes the screen it is given,
// which would reset its size), and Text and Dump read it without racing with the draws.
func NewScreen(w, h int) (tcell.SimulationScreen, error) {
	s := &liveScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	if err := s.SimulationScreen.Init(); err != nil {
		return nil, err
	}
	s.SetSize(w, h)
	return s, nil
}

// liveScreen is a simulation screen drawn on by one goroutine and read by another.
type liveScreen struct {
	tcell.SimulationScreen
	mu sync.Mutex
}

// Init does nothing: the screen is initialized already.
func (*liveScreen) Init() error { return nil }

// Show implements tcell.Screen.
func (s *liveScreen) Show() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.SimulationScreen.Show()
}

// Sync implements tcell.Screen.
func (s *liveScreen) Sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.SimulationScreen.Sync()
}

// Line is row y of what a screen shows, trailing spaces trimmed; cheaper than Text for polling.
func Line(s tcell.SimulationScreen, y int) string {
	if l, ok := s.(*liveScreen); ok {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	cells, w, h := s.GetContents()
	if y < 0 || y >= h {
		return ""
	}
	return strings.TrimRight(row(cells[y*w:(y+1)*w]), " ")
}

// contents copies what a screen shows.
func contents(s tcell.SimulationScreen) ([]tcell.SimCell, int, int) {
	if l, ok := s.(*liveScreen); ok {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	cells, w, h := s.GetContents()
	out := make([]tcell.SimCell, len(cells))
	for i, c := range cells {
		out[i] = tcell.SimCell{Style: c.Style, Runes: append([]rune(nil), c.Runes...), Bytes: append([]byte(nil), c.Bytes...)}
	}
	return out, w, h
}
