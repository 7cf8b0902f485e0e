package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/keymap"
)

// handleKey routes a key: to the open dialog, else the prompt, else the keymap of the view on
// top and the global keys, else the view itself (cursor movement). A key the mode forbids does
// nothing but flash why. UI goroutine.
func (c *Console) handleKey(ev *tcell.EventKey) {
	switch {
	case c.dialog != nil:
		c.dialog.Handle(ev)
		return
	case c.prompt != nil:
		c.prompt.Handle(ev)
		return
	}
	if a, ok := c.keys().Find(ev); ok {
		if why := a.Perm.Denied(c.info.keyMode()); why != "" {
			c.flash.warn(a.Name + " is disabled: " + why)
			return
		}
		a.Do()
		return
	}
	c.views.top().InputHandler()(ev, func(tview.Primitive) {})
}

// keys are every key that works now: the view's, then the global ones.
func (c *Console) keys() keymap.Map {
	return append(c.views.top().keys(c), c.globalKeys()...)
}

// globalKeys work in every view.
func (c *Console) globalKeys() keymap.Map {
	pause := "pause"
	if c.info.Paused {
		pause = "resume"
	}
	km := keymap.Map{
		{Key: keymap.Rune(':'), Name: "command", Help: "run a command (:pods, :np, :nodes, :q...); Tab completes, Up and Down walk the history", Hint: true, Do: c.openCommand},
		{Key: keymap.Rune('/'), Name: "filter", Help: "filter rows: a regular expression, !regexp for the rows that do not match, -l app=web for a label selector", Hint: true, Do: c.openFilter},
		{Key: keymap.Rune('?'), Name: "help", Help: "this help", Hint: true, Do: c.showHelp},
		{Key: keymap.Code(tcell.KeyEscape), Name: "back", Help: "clear the filter, else go back", Hint: true, Do: c.back},
		{Key: keymap.Rune('p'), Name: pause, Help: "pause or resume the autoscaler (it keeps watching)", Perm: keymap.Steer, Hint: true, Do: c.togglePause},
		{Key: keymap.Code(tcell.KeyCtrlC), Name: "quit", Help: "quit", Do: c.quit},
	}
	if c.demo != nil {
		km = append(km,
			keymap.Action{Key: keymap.Rune('+'), Name: "scale up", Help: "demo: add a replica to the selected demo Deployment (else the first)", Perm: keymap.Steer, Hint: true, Do: func() { c.scale(1) }},
			keymap.Action{Key: keymap.Rune('-'), Name: "scale down", Help: "demo: remove a replica from the selected demo Deployment (else the first)", Perm: keymap.Steer, Hint: true, Do: func() { c.scale(-1) }},
			keymap.Action{Key: keymap.Rune('a'), Name: "autoplay", Help: "demo: start or stop the scripted story", Perm: keymap.Steer, Hint: true, Do: c.toggleAutoplay},
		)
	}
	return km
}

// back clears the active pane's filter, or goes back a view.
func (c *Console) back() {
	if p := c.views.top().active(); p != nil && !p.spec.Query.Filter.Empty() {
		c.setFilter(p, "")
		return
	}
	c.views.pop()
}

// quit ends Run (its context).
func (c *Console) quit() { c.stop() }

// wheelRows is how many rows one turn of the mouse wheel moves.
const wheelRows = 3

// handleMouse routes a mouse action as k9s does with its mouse on: a click selects the row under
// the pointer (its pane becomes the active one), a double click opens it as Enter does, the
// wheel moves the selection, or scrolls a text, by wheelRows. While a dialog or the prompt is
// open the mouse does nothing. It reports whether it used the action. UI goroutine.
func (c *Console) handleMouse(action tview.MouseAction, ev *tcell.EventMouse) bool {
	if c.dialog != nil || c.prompt != nil {
		return false
	}
	x, y := ev.Position()
	v := c.views.top()
	switch action {
	case tview.MouseScrollUp, tview.MouseScrollDown:
		step := wheelRows
		if action == tview.MouseScrollUp {
			step = -step
		}
		if p := v.point(x, y); p != nil {
			p.grid.move(step)
		} else if t, ok := v.(*textView); ok && t.InRect(x, y) {
			t.offset = max(0, t.offset+step)
		}
	case tview.MouseLeftClick, tview.MouseLeftDoubleClick:
		p := v.point(x, y)
		if p == nil {
			return false
		}
		if i, ok := p.grid.rowAt(y); ok {
			p.grid.selected = i
			p.grid.move(0) // a group header selects the nearest object row
			if action == tview.MouseLeftDoubleClick {
				c.enter(p)
			}
		}
	default:
		return false
	}
	return true
}
