package ui

import (
	"fmt"
	"strings"

	"github.com/nodepilot/nodepilot/ui/keymap"
	"github.com/nodepilot/nodepilot/ui/render"
)

// showHelp opens the help screen of the view on top: its keys, the global keys and the
// commands, as the mode allows them (read-only lists no dangerous key).
func (c *Console) showHelp() {
	if _, open := c.views.top().(*textView); open && strings.HasPrefix(c.views.top().crumb(), "help") {
		return
	}
	text := c.helpText()
	v := newTextView("help", "Help", c.pal, nil)
	v.text = text
	c.views.push(v)
}

func (c *Console) helpText() render.Text {
	var t render.Writer
	section := func(title string, km keymap.Map) {
		t.Heading(title)
		for _, a := range km.Allowed(c.info.keyMode()) {
			t.Add(fmt.Sprintf("  %-12s", "<"+a.Key.String()+">"), render.ToneKey).Add(fmt.Sprintf("%-16s", a.Name), render.ToneNormal).Add(a.Help, render.ToneCompleted).End()
		}
		t.Blank()
	}
	section("Keys of "+c.views.top().crumb(), c.views.top().keys(c))
	section("Everywhere", c.globalKeys())
	t.Heading("Commands")
	for _, cmd := range commands() {
		t.Add(fmt.Sprintf("  %-16s", ":"+cmd.name), render.ToneKey).Add(fmt.Sprintf("%-22s", strings.Join(cmd.aliases, " ")), render.ToneNormal).Add(cmd.help, render.ToneCompleted).End()
		if cmd.args != "" {
			t.Add(fmt.Sprintf("  %-38s", ""), render.ToneNormal).Add(":"+cmd.name+" "+cmd.args, render.ToneNormal).End()
		}
	}
	t.Blank()
	t.Heading("Moving")
	t.Para(2, "j k or arrows move, g G top and bottom, PgUp PgDn page, h l scroll columns", render.ToneNormal)
	if why := keymap.Write.Denied(c.info.keyMode()); why != "" {
		t.Blank()
		t.Para(0, "Actions that change the cluster are off: "+why+".", render.ToneWarning)
	}
	return t.Text()
}
