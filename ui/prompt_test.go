package ui

import (
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestComplete(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"no", "depools"},
		{"nodec", "laims"},
		{"in", "terruptions"},
		{"NP", ""}, // an alias, typed in full
		{"dec", "isions"},
		{"x", ""},
		{"", ""},
		{"q", "uit"},
	} {
		if got := complete(tc.in); got != tc.want {
			t.Errorf("complete(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, name := range []string{"np", "NodePools", " nodepools ", "nodepool"} {
		if cmd, ok := findCommand(name); !ok || cmd.name != "nodepools" {
			t.Errorf("findCommand(%q) = %v, %v", name, cmd.name, ok)
		}
	}
}

func TestPromptEditsAndWalksHistory(t *testing.T) {
	h := newHistory(3)
	for _, s := range []string{"pods", "np", "np", "nodes", "events"} {
		h.add(s)
	}
	if s, _ := h.at(0); s != "events" {
		t.Errorf("newest: %s", s)
	}
	if _, ok := h.at(3); ok {
		t.Errorf("history keeps at most 3")
	}
	var got string
	var ok bool
	p := &prompt{suggest: complete, history: h, histPos: -1, done: func(s string, accepted bool) { got, ok = s, accepted }}
	press := func(keys ...*tcell.EventKey) {
		for _, k := range keys {
			p.handle(k)
		}
	}
	r := func(c rune) *tcell.EventKey { return tcell.NewEventKey(tcell.KeyRune, c, tcell.ModNone) }
	k := func(c tcell.Key) *tcell.EventKey { return tcell.NewEventKey(c, 0, tcell.ModNone) }
	press(r('n'), r('o'), r('d'))
	if p.suggestion() != "epools" {
		t.Errorf("suggestion %q", p.suggestion())
	}
	press(k(tcell.KeyTab))
	if p.String() != "nodepools" {
		t.Errorf("after Tab: %q", p.String())
	}
	press(k(tcell.KeyUp), k(tcell.KeyUp))
	if p.String() != "nodes" {
		t.Errorf("two up: %q", p.String())
	}
	press(k(tcell.KeyDown), k(tcell.KeyDown))
	if p.String() != "nodepools" {
		t.Errorf("back down to what was typed: %q", p.String())
	}
	press(k(tcell.KeyCtrlW), r('p'), r('o'), k(tcell.KeyBackspace2), r('o'), k(tcell.KeyEnter))
	if got != "po" || !ok {
		t.Errorf("done(%q, %v)", got, ok)
	}
	press(k(tcell.KeyEscape))
	if ok {
		t.Errorf("Esc accepted")
	}
}
