// Package dialog is the console's confirmation of a dangerous action: a centered box with
// Cancel and OK, Cancel focused first.
package dialog

import (
	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/skin"
)

// Dialog asks the operator to confirm. Tab, Left and Right move the focus, Enter presses the
// focused button, y confirms, n and Esc cancel.
type Dialog struct {
	title, message, ok string
	// focusOK is true when OK has the focus.
	focusOK bool
	done    func(confirmed bool)
}

// New asks message under title, with ok the confirming button's label; done gets the answer.
func New(title, message, ok string, done func(confirmed bool)) *Dialog {
	return &Dialog{title: title, message: message, ok: ok, done: done}
}

// Handle answers a key.
func (d *Dialog) Handle(ev *tcell.EventKey) {
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

// Draw draws the dialog centered in the area, in the skin's dialog colors.
func (d *Dialog) Draw(screen tcell.Screen, x, y, w, h int, sk *skin.Skin) {
	s := sk.Dialog
	lines := draw.Wrap(d.message, min(60, w-6))
	dw := min(w, 66)
	dh := min(h, len(lines)+6)
	dx, dy := x+(w-dw)/2, y+(h-dh)/2
	base := draw.Style(s.Fg, s.Bg)
	draw.Fill(screen, dx, dy, dw, dh, base)
	ix, iy, iw, _ := draw.Box(screen, dx, dy, dw, dh, draw.Style(s.LabelFg, s.Bg), []draw.Span{draw.Text(" "+d.title+" ", draw.Style(s.LabelFg, s.Bg).Bold(true))})
	for i, l := range lines {
		draw.Put(screen, ix+2, iy+1+i, iw-4, l, draw.Style(s.FieldFg, s.Bg))
	}
	cancel, ok := " Cancel ", " "+d.ok+" "
	by := iy + len(lines) + 2
	bx := ix + (iw-draw.Width(cancel)-draw.Width(ok)-3)/2
	draw.Put(screen, bx, by, iw, cancel, d.button(sk, !d.focusOK))
	draw.Put(screen, bx+draw.Width(cancel)+3, by, iw, ok, d.button(sk, d.focusOK))
}

func (d *Dialog) button(sk *skin.Skin, focused bool) tcell.Style {
	s := sk.Dialog
	if focused {
		return draw.Style(s.ButtonFocusFg, s.ButtonFocusBg).Bold(true)
	}
	return draw.Style(s.ButtonFg, s.ButtonBg)
}
