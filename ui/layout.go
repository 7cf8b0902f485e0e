package ui

import (
	"github.com/gdamore/tcell/v2"
)

// bottomLines are the crumbs, the flash line and the key hints.
const bottomLines = 3

// draw lays the console out: the header, the prompt when open, the view on top, then crumbs,
// flash and hints; a dialog over everything. Each part writes every cell of its area once, so
// nothing is cleared first.
func (c *Console) draw(screen tcell.Screen, x, y, w, h int) {
	used := c.drawHeader(screen, x, y, w)
	if c.prompt != nil {
		c.prompt.Draw(screen, x, y+used, w, c.pal.s)
		used++
	}
	mainH := max(0, h-used-bottomLines)
	v := c.views.top()
	v.SetRect(x, y+used, w, mainH)
	v.Draw(screen)
	c.drawCrumbs(screen, x, y+h-3, w)
	c.drawFlash(screen, x, y+h-2, w)
	c.drawHints(screen, x, y+h-1, w)
	if c.dialog != nil {
		c.dialog.Draw(screen, x, y, w, h, c.pal.s)
	}
}
