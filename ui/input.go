package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// handleKey routes a key: to the open dialog, else the prompt, else the keymap of the view on
// top and the global keys, else the view itself (cursor movement). A key the mode forbids does
// nothing but flash why. UI goroutine.
func (c *Console) handleKey(ev *tcell.EventKey) {
	switch {
	case c.dialog != nil:
		c.dialog.handle(ev)
		return
	case c.prompt != nil:
		c.prompt.handle(ev)
		return
	}
	if a, ok := c.keymap().find(ev); ok {
		if why := a.perm.denied(c.info); why != "" {
			c.flashWarn(a.name + " is disabled: " + why)
			return
		}
		a.do()
		return
	}
	c.top().InputHandler()(ev, func(tview.Primitive) {})
}

// keymap is every key that works now: the view's, then the global ones.
func (c *Console) keymap() keymap {
	return append(c.top().keys(c), c.globalKeys()...)
}

// globalKeys work in every view.
func (c *Console) globalKeys() keymap {
	pause := "pause"
	if c.info.Paused {
		pause = "resume"
	}
	km := keymap{
		{key: runeKey(':'), name: "command", help: "run a command (:pods, :np, :nodes, :q...); Tab completes, Up and Down walk the history", hint: true, do: c.openCommand},
		{key: runeKey('/'), name: "filter", help: "filter rows: a regular expression, !regexp for the rows that do not match, -l app=web for a label selector", hint: true, do: c.openFilter},
		{key: runeKey('?'), name: "help", help: "this help", hint: true, do: c.showHelp},
		{key: codeKey(tcell.KeyEscape), name: "back", help: "clear the filter, else go back", hint: true, do: c.back},
		{key: runeKey('p'), name: pause, help: "pause or resume the autoscaler (it keeps watching)", perm: permSteer, hint: true, do: c.togglePause},
		{key: codeKey(tcell.KeyCtrlC), name: "quit", help: "quit", do: c.quit},
	}
	if c.demo != nil {
		km = append(km,
			action{key: runeKey('+'), name: "scale up", help: "demo: add a replica to the selected demo Deployment (else the first)", perm: permSteer, hint: true, do: func() { c.scale(1) }},
			action{key: runeKey('-'), name: "scale down", help: "demo: remove a replica from the selected demo Deployment (else the first)", perm: permSteer, hint: true, do: func() { c.scale(-1) }},
			action{key: runeKey('a'), name: "autoplay", help: "demo: start or stop the scripted story", perm: permSteer, hint: true, do: c.toggleAutoplay},
		)
	}
	return km
}

// back clears the active pane's filter, or goes back a view.
func (c *Console) back() {
	if p := c.top().active(); p != nil && !p.spec.Query.Filter.Empty() {
		c.setFilter(p, "")
		return
	}
	c.pop()
}

// quit ends Run (its context).
func (c *Console) quit() { c.stop() }
