package prompt

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// complete suggests the rest of the first of a few command names that text begins.
func complete(text string) string {
	for _, name := range []string{"nodepools", "nodes", "pods"} {
		if strings.HasPrefix(name, text) {
			return name[len(text):]
		}
	}
	return ""
}

func TestPromptEditsAndWalksHistory(t *testing.T) {
	h := NewHistory(3)
	for _, s := range []string{"pods", "np", "np", "nodes", "events"} {
		h.Add(s)
	}
	if s, _ := h.At(0); s != "events" {
		t.Errorf("newest: %s", s)
	}
	if _, ok := h.At(3); ok {
		t.Errorf("history keeps at most 3")
	}
	var got string
	var ok bool
	p := New(Command, "", complete, h)
	p.Done = func(s string, accepted bool) { got, ok = s, accepted }
	press := func(keys ...*tcell.EventKey) {
		for _, k := range keys {
			p.Handle(k)
		}
	}
	r := func(c rune) *tcell.EventKey { return tcell.NewEventKey(tcell.KeyRune, c, tcell.ModNone) }
	k := func(c tcell.Key) *tcell.EventKey { return tcell.NewEventKey(c, 0, tcell.ModNone) }
	press(r('n'), r('o'), r('d'))
	if p.Suggestion() != "epools" {
		t.Errorf("suggestion %q", p.Suggestion())
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
