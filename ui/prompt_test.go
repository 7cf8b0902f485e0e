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

func TestKeymapModes(t *testing.T) {
	km := keymap{
		{key: runeKey('d'), name: "describe", hint: true},
		{key: runeKey('c'), name: "cordon", perm: permWrite, hint: true},
		{key: runeKey('p'), name: "pause", perm: permSteer, hint: true},
		{key: runeKey('N'), name: "sort name", sort: true},
		{key: runeKey('d'), name: "shadowed"},
	}
	names := func(m keymap) (out []string) {
		for _, a := range m {
			out = append(out, a.name)
		}
		return out
	}
	for _, tc := range []struct {
		info Info
		want string
	}{
		{Info{}, "describe cordon pause sort name"},
		{Info{DryRun: true}, "describe pause sort name"},
		{Info{ReadOnly: true}, "describe sort name"},
	} {
		if got := join(names(km.allowed(tc.info))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.info.Mode(), got, tc.want)
		}
	}
	if got := join(names(km.hints(Info{ReadOnly: true}))); got != "describe" {
		t.Errorf("read-only hints: %s", got)
	}
	if km.sortKeys() != "N" {
		t.Errorf("sort keys %q", km.sortKeys())
	}
	for k, want := range map[key]string{runeKey('N'): "Shift-N", codeKey(tcell.KeyCtrlD): "Ctrl-D", codeKey(tcell.KeyEscape): "Esc", runeKey('/'): "/"} {
		if k.String() != want {
			t.Errorf("%v: %s", k, k.String())
		}
	}
	if a, ok := km.find(tcell.NewEventKey(tcell.KeyCtrlD, 'd', tcell.ModCtrl)); ok {
		t.Errorf("Ctrl-D found %s", a.name)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
