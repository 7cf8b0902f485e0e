package ui

import (
	"strings"

	"github.com/nodepilot/nodepilot/ui/prompt"
	"github.com/nodepilot/nodepilot/ui/render"
)

// openCommand opens the ":" prompt.
func (c *Console) openCommand() {
	c.contextsAsked = false
	pr := prompt.New(prompt.Command, "", c.completeLine, c.history)
	pr.Changed = c.askContexts
	pr.Done = func(text string, ok bool) {
		c.prompt = nil
		text = strings.TrimSpace(text)
		if !ok || text == "" {
			return
		}
		c.history.Add(text)
		if err := c.runCommand(text); err != nil {
			c.flash.err(err.Error())
		}
	}
	c.prompt = pr
}

// openFilter opens the "/" prompt over the active pane; the table follows the typing, Enter
// keeps the filter, Esc restores the previous one.
func (c *Console) openFilter() {
	p := c.views.top().active()
	if p == nil {
		c.flash.warn("nothing to filter here")
		return
	}
	previous := p.spec.Query.Filter.Text()
	pr := prompt.New(prompt.Filter, previous, nil, nil)
	pr.Changed = func(text string) {
		f, err := render.ParseFilter(text)
		pr.Invalid = err != nil
		if err == nil {
			p.spec.Query.Filter = f
			c.replan()
		}
	}
	pr.Done = func(text string, ok bool) {
		c.prompt = nil
		if !ok {
			c.setFilter(p, previous)
			return
		}
		if err := c.setFilter(p, text); err != nil {
			c.flash.err(err.Error())
			c.setFilter(p, previous)
		}
	}
	c.prompt = pr
}

// setFilter filters a pane.
func (c *Console) setFilter(p *pane, text string) error {
	f, err := render.ParseFilter(text)
	if err != nil {
		return err
	}
	p.spec.Query.Filter = f
	c.replan()
	return nil
}

// sortBy sorts a pane by a column; the same column again flips the order.
func (c *Console) sortBy(p *pane, column int) {
	p.spec.Query.Sort = p.spec.Query.Sort.Toggle(p.grid.columns, column)
	c.replan()
}
