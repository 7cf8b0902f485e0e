package uitest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gdamore/tcell/v2"
)

// styleLetters are the letters a Legend gives styles, in the order it meets them.
const styleLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./;<=>?@[]^_{|}~"

// Legend names each style (its colors and attributes) with a letter it keeps: every screen dumped
// with one legend names a style the same way, so a golden file's diff shows the cells whose style
// changed, and a new style takes a new letter instead of renaming the others. Golden screens keep
// one legend file per skin. A style no screen uses any more keeps its letter; delete the file
// and rewrite the screens to renumber.
type Legend struct {
	letters map[string]byte // by describe(style)
	lines   []string        // "letter description", in letter order
	changed bool
}

// NewLegend is an empty legend.
func NewLegend() *Legend { return &Legend{letters: map[string]byte{}} }

// ReadLegend reads a legend file written by Save; a missing file is an empty legend.
func ReadLegend(path string) (*Legend, error) {
	l := NewLegend()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if len(line) < 3 || line[1] != ' ' || i >= len(styleLetters) || line[0] != styleLetters[i] {
			return nil, fmt.Errorf("%s: line %d: %q is not %q followed by a space and a style", path, i+1, line, styleLetters[min(i, len(styleLetters)-1)])
		}
		l.letters[line[2:]] = line[0]
		l.lines = append(l.lines, line)
	}
	return l, nil
}

// Save writes the legend to path if a style was added since it was read.
func (l *Legend) Save(path string) error {
	if !l.changed {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.Join(l.lines, "\n")+"\n"), 0o644)
}

// letter is the style's letter, given now if it has none ('~' for every style past the last
// letter).
func (l *Legend) letter(st tcell.Style) byte {
	d := describe(st)
	if c, ok := l.letters[d]; ok {
		return c
	}
	c := styleLetters[min(len(l.lines), len(styleLetters)-1)]
	l.letters[d] = c
	l.lines = append(l.lines, string(c)+" "+d)
	l.changed = true
	return c
}

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
// its style in the legend, then the letters it used with their styles. Golden files store it.
func Dump(s tcell.SimulationScreen, legend *Legend) string {
	cells, w, h := contents(s)
	var b strings.Builder
	b.WriteString(Text(s))
	b.WriteString("--- styles\n")
	used := map[byte]bool{}
	for y := range h {
		for _, c := range cells[y*w : (y+1)*w] {
			l := legend.letter(c.Style)
			used[l] = true
			b.WriteByte(l)
		}
		b.WriteByte('\n')
	}
	b.WriteString("--- legend\n")
	for _, line := range legend.lines {
		if used[line[0]] {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
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
