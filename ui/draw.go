package ui

import (
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"
)

// span is text in a style, for lines drawn by hand (header, crumbs, hints, titles).
type span struct {
	text  string
	style tcell.Style
}

// put draws text at x, y, at most w cells wide, and returns the cells used. It draws runes as
// they are: no style tags.
func put(screen tcell.Screen, x, y, w int, text string, st tcell.Style) int {
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

// line draws spans on a whole line: the spans from x, then blanks to x+w. Every cell of the
// line is written once.
func line(screen tcell.Screen, x, y, w int, blankStyle tcell.Style, spans []span) {
	used := putSpans(screen, x, y, w, spans)
	blank(screen, x+used, y, w-used, blankStyle)
}

// spansWidth is the cells spans take.
func spansWidth(spans []span) int {
	n := 0
	for _, s := range spans {
		n += width(s.text)
	}
	return n
}

// putSpans draws spans one after the other and returns the cells used.
func putSpans(screen tcell.Screen, x, y, w int, spans []span) int {
	used := 0
	for _, s := range spans {
		used += put(screen, x+used, y, w-used, s.text, s.style)
	}
	return used
}

// fill paints a rectangle.
func fill(screen tcell.Screen, x, y, w, h int, st tcell.Style) {
	for j := range h {
		blank(screen, x, y+j, w, st)
	}
}

// spaces are what blank writes, a run at a time.
const spaces = "                                                                                                                                "

// blank writes w spaces.
func blank(screen tcell.Screen, x, y, w int, st tcell.Style) {
	for w > 0 {
		n := min(w, len(spaces))
		screen.PutStrStyled(x, y, spaces[:n], st)
		x, w = x+n, w-n
	}
}

// width is the cells text takes.
func width(text string) int {
	if isASCII(text) {
		return len(text)
	}
	if isNarrow(text) {
		return utf8.RuneCountInString(text)
	}
	return uniseg.StringWidth(text)
}

// box draws a border with a title of spans, and returns the inner rectangle.
func box(screen tcell.Screen, x, y, w, h int, border tcell.Style, title []span) (int, int, int, int) {
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
			tw += width(s.text)
		}
		avail := w - 4
		start := x + 2
		if tw < avail {
			start = x + (w-tw)/2
		}
		putSpans(screen, start, y, avail, title)
	}
	return x + 1, y + 1, w - 2, h - 2
}
