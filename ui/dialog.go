package ui

import (
	"strings"

	"github.com/gdamore/tcell/v2"
)

// dialog asks the operator to confirm a dangerous action. Cancel has the focus first; Tab,
// Left and Right move it, Enter presses the focused button, y confirms, n and Esc cancel.
type dialog struct {
	title, message string
	ok             string
	// focusOK is true when OK has the focus.
	focusOK bool
	done    func(confirmed bool)
}

// handle answers a key.
func (d *dialog) handle(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyTab, tcell.KeyBacktab, tcell.KeyLeft, tcell.KeyRight:
		d.focusOK = !d.focusOK
	case tcell.KeyEnter:
		d.done(d.focusOK)
	case tcell.KeyEscape:
		d.done(false)
	case tcell.KeyRune:
		switch ev.Rune() {
		case 'y', 'Y':
			d.done(true)
		case 'n', 'N', 'q':
			d.done(false)
		case 'h', 'l':
			d.focusOK = !d.focusOK
		}
	}
}

// draw draws the dialog centered in the area.
func (d *dialog) draw(screen tcell.Screen, x, y, w, h int, pal *palette) {
	s := pal.s.Dialog
	lines := wrap(d.message, min(60, w-6))
	dw := min(w, 66)
	dh := min(h, len(lines)+6)
	dx, dy := x+(w-dw)/2, y+(h-dh)/2
	base := style(s.Fg, s.Bg)
	fill(screen, dx, dy, dw, dh, base)
	ix, iy, iw, _ := box(screen, dx, dy, dw, dh, style(s.LabelFg, s.Bg), []span{{" " + d.title + " ", style(s.LabelFg, s.Bg).Bold(true)}})
	for i, l := range lines {
		put(screen, ix+2, iy+1+i, iw-4, l, style(s.FieldFg, s.Bg))
	}
	cancel, ok := " Cancel ", " "+d.ok+" "
	by := iy + len(lines) + 2
	bx := ix + (iw-width(cancel)-width(ok)-3)/2
	put(screen, bx, by, iw, cancel, d.button(pal, !d.focusOK))
	put(screen, bx+width(cancel)+3, by, iw, ok, d.button(pal, d.focusOK))
}

func (d *dialog) button(pal *palette, focused bool) tcell.Style {
	s := pal.s.Dialog
	if focused {
		return style(s.ButtonFocusFg, s.ButtonFocusBg).Bold(true)
	}
	return style(s.ButtonFg, s.ButtonBg)
}

// wrap breaks text into lines of at most n cells, at spaces.
func wrap(text string, n int) []string {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case width(line)+1+width(word) <= n:
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
