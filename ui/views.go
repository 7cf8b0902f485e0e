package ui

import (
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
	"github.com/nodepilot/nodepilot/ui/skin"
)

// views is the path of views the operator opened, the one drawn on top; changed runs after
// every change (the console publishes the new top's plans). UI goroutine only.
type views struct {
	stack   []view
	changed func()
}

// top is the view drawn now.
func (vs *views) top() view { return vs.stack[len(vs.stack)-1] }

// push opens a view on top of the current one (a drill-down); Esc comes back.
func (vs *views) push(v view) {
	vs.stack = append(vs.stack, v)
	vs.changed()
}

// pop goes back one view; the first view stays.
func (vs *views) pop() {
	if len(vs.stack) > 1 {
		closeView(vs.top())
		vs.stack = vs.stack[:len(vs.stack)-1]
		vs.changed()
	}
}

// reset replaces every view with one (a ":" command).
func (vs *views) reset(v view) {
	for _, old := range vs.stack {
		closeView(old)
	}
	vs.stack = []view{v}
	vs.changed()
}

// closeView stops what a view owns (a log stream) when it is left for good.
func closeView(v view) {
	if cl, ok := v.(interface{ close() }); ok {
		cl.close()
	}
}

func (c *Console) newDashboard() view { return newDashboard(c.pal) }

// openKind opens a kind's full table.
func (c *Console) openKind(k model.Kind) {
	c.views.reset(newTableView(model.Spec{Kind: k, Query: render.Query{Sort: render.Unsorted()}}, "", string(k), c.pal))
}

// setPalette swaps the skin of every view.
func (c *Console) setPalette(s *skin.Skin) {
	c.pal = newPalette(s)
	for _, v := range c.views.stack {
		v.setPalette(c.pal)
	}
}
