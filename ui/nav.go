package ui

import (
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
	"github.com/nodepilot/nodepilot/ui/skin"
)

// top is the view drawn now.
func (c *Console) top() view { return c.stack[len(c.stack)-1] }

// push opens a view on top of the current one (a drill-down); Esc comes back.
func (c *Console) push(v view) {
	c.stack = append(c.stack, v)
	c.replan()
}

// pop goes back one view; the first view stays.
func (c *Console) pop() {
	if len(c.stack) > 1 {
		closeView(c.top())
		c.stack = c.stack[:len(c.stack)-1]
		c.replan()
	}
}

// reset replaces every view with one (a ":" command).
func (c *Console) reset(v view) {
	for _, old := range c.stack {
		closeView(old)
	}
	c.stack = []view{v}
	c.replan()
}

func (c *Console) newDashboard() view { return newDashboard(c.pal) }

// openKind opens a kind's full table.
func (c *Console) openKind(k model.Kind) {
	c.reset(newTableView(model.Spec{Kind: k, Query: render.Query{Sort: render.Unsorted()}}, "", string(k), c.pal))
}

// setPalette swaps the skin of every view.
func (c *Console) setPalette(s *skin.Skin) {
	c.pal = newPalette(s)
	for _, v := range c.stack {
		v.setPalette(c.pal)
	}
}

// closeView stops what a view owns (a log stream) when it is left for good.
func closeView(v view) {
	if cl, ok := v.(interface{ close() }); ok {
		cl.close()
	}
}
