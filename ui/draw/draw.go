// Package draw writes text, spans and boxes onto a tcell screen, cell by cell, for the parts
// of the console drawn by hand.
package draw

import (
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"
)

// Span is text in a style, for lines drawn by hand (header, crumbs, hints, titles).
type Span struct {
	Text  string
	Style tcell.Style
}

// Text is a span of text in a style.
func Text(text string, st tcell.Style) Span { return Span{Text: text, Style: st} }

// Put draws text at x, y, at most w cells wide, and returns the cells used. It draws runes as
// they are: no style tags.
func Put(screen tcell.Screen, x, y, w int, text string, st tcell.Style) int {
	if isASCII(text) {
		n := max(0, min(len(text), w))
		screen.PutStrStyled(x, y, text[:n], st)
		return n
	}
	if isNarrow(text) {
		used := 0
		for _, r := range text {
			if used == w {
				break
			}
			screen.SetContent(x+used, y, r, nil, st)
			used++
		}
		return used
	}
	used := 0
	g := uniseg.NewGraphemes(text)
	for g.Next() {
		rs := g.Runes()
		width := g.Width()
		if used+width > w {
			break
		}
		screen.SetContent(x+used, y, rs[0], rs[1:], st)
		used += width
	}
	return used
}

// Line draws spans on a whole line: the spans from x, then blanks to x+w. Every cell of the
// line is written once.
func Line(screen tcell.Screen, x, y, w int, blankStyle tcell.Style, spans []Span) {
	used := PutSpans(screen, x, y, w, spans)
	Blank(screen, x+used, y, w-used, blankStyle)
}

// SpansWidth is the cells spans take.
func SpansWidth(spans []Span) int {
	n := 0
	for _, s := range spans {
		n += Width(s.Text)
	}
	return n
}

// PutSpans draws spans one after the other and returns the cells used.
func PutSpans(screen tcell.Screen, x, y, w int, spans []Span) int {
	used := 0
	for _, s := range spans {
		used += Put(screen, x+used, y, w-used, s.Text, s.Style)
	}
	return used
}

// Fill paints a rectangle.
func Fill(screen tcell.Screen, x, y, w, h int, st tcell.Style) {
	for j := range h {
		Blank(screen, x, y+j, w, st)
	}
}

// spaces are what blank writes, a run at a time.
const spaces = "                                                                                                                                "

// Blank writes w spaces.
func Blank(screen tcell.Screen, x, y, w int, st tcell.Style) {
	for w > 0 {
		n := min(w, len(spaces))
		screen.PutStrStyled(x, y, spaces[:n], st)
		x, w = x+n, w-n
	}
}

// Width is the cells text takes.
func Width(text string) int {
	if isASCII(text) {
		return len(text)
	}
	if isNarrow(text) {
		return utf8.RuneCountInString(text)
	}
	return uniseg.StringWidth(text)
}

// Box draws a border with a title of spans, and returns the inner rectangle.
func Box(screen tcell.Screen, x, y, w, h int, border tcell.Style, title []Span) (int, int, int, int) {
	if w < 2 || h < 2 {
		return x, y, 0, 0
	}
	for i := x + 1; i < x+w-1; i++ {
		screen.SetContent(i, y, tview.Borders.Horizontal, nil, border)
		screen.SetContent(i, y+h-1, tview.Borders.Horizontal, nil, border)
	}
	for j := y + 1; j < y+h-1; j++ {
		screen.SetContent(x, j, tview.Borders.Vertical, nil, border)
		screen.SetContent(x+w-1, j, tview.Borders.Vertical, nil, border)
	}
	screen.SetContent(x, y, tview.Borders.TopLeft, nil, border)
	screen.SetContent(x+w-1, y, tview.Borders.TopRight, nil, border)
	screen.SetContent(x, y+h-1, tview.Borders.BottomLeft, nil, border)
	screen.SetContent(x+w-1, y+h-1, tview.Borders.BottomRight, nil, border)
	if len(title) > 0 {
		tw := 0
		for _, s := range title {
			tw += Width(s.Text)
		}
		avail := w - 4
		start := x + 2
		if tw < avail {
			start = x + (w-tw)/2
		}
		PutSpans(screen, start, y, avail, title)
	}
	return x + 1, y + 1, w - 2, h - 2
}

// Style is a foreground on a background.
func Style(fg, bg tcell.Color) tcell.Style { return tcell.StyleDefault.Foreground(fg).Background(bg) }

// Wrap breaks text into lines of at most n cells, at spaces.
func Wrap(text string, n int) []string {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case Width(line)+1+Width(word) <= n:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// isNarrow reports whether every rune of s takes one cell on its own, without segmenting it into
// graphemes: Latin-1, the ellipsis, box drawing and block elements (bars and sparklines).
func isNarrow(s string) bool {
	for _, r := range s {
		if (r < 0x20 || r >= 0x300) && r != '…' && (r < 0x2500 || r > 0x259F) {
			return false
		}
	}
	return true
}

// isASCII reports whether s is plain ASCII, which draws one byte per cell.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
