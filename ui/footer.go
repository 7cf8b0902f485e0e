package ui

import (
	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/draw"
)

// drawCrumbs draws the path of views, the current one highlighted.
func (c *Console) drawCrumbs(screen tcell.Screen, x, y, w int) {
	s := c.pal.s.Frame.Crumbs
	body := c.pal.body()
	spans := []draw.Span{draw.Text(" ", body)}
	for i, v := range c.views.stack {
		st := draw.Style(s.Fg, s.Bg)
		if i == len(c.views.stack)-1 {
			st = draw.Style(s.Fg, s.Active).Bold(true)
		}
		spans = append(spans, draw.Text(" "+v.crumb()+" ", st), draw.Text(" ", body))
	}
	draw.Line(screen, x, y, w, body, spans)
}

// drawFlash draws the latest message while it is fresh.
func (c *Console) drawFlash(screen tcell.Screen, x, y, w int) {
	text := c.flash.current()
	st, bg := c.pal.s.Frame.Status, c.pal.s.Body.Bg
	color := c.pal.s.Body.Fg
	switch c.flash.level {
	case flashWarnLevel:
		color = st.Modify
	case flashErrLevel:
		color = st.Error
	}
	draw.Line(screen, x, y, w, c.pal.body(), []draw.Span{draw.Text(" "+text, draw.Style(color, bg))})
}

// drawHints draws the keys of the view on top, as the mode allows them: "<d> describe".
func (c *Console) drawHints(screen tcell.Screen, x, y, w int) {
	m := c.pal.s.Frame.Menu
	bg := c.pal.s.Body.Bg
	keyStyle := draw.Style(m.Key, bg).Bold(true)
	nameStyle := draw.Style(m.Fg, bg).Dim(m.Dim).Bold(m.Bold)
	km := c.keys()
	spans := []draw.Span{draw.Text(" ", c.pal.body())}
	for _, a := range km.Hints(c.info.keyMode()) {
		spans = append(spans, draw.Text("<"+a.Key.String()+">", keyStyle), draw.Text(a.Name+" ", nameStyle))
	}
	if letters := km.Allowed(c.info.keyMode()).SortKeys(); letters != "" {
		spans = append(spans, draw.Text("<Shift-"+letters+">", keyStyle), draw.Text("sort", nameStyle))
	}
	draw.Line(screen, x, y, w, c.pal.body(), spans)
}
