package dialog

import (
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestHandle(t *testing.T) {
	key := func(k tcell.Key) *tcell.EventKey { return tcell.NewEventKey(k, 0, tcell.ModNone) }
	r := func(c rune) *tcell.EventKey { return tcell.NewEventKey(tcell.KeyRune, c, tcell.ModNone) }
	for _, tc := range []struct {
		name string
		keys []*tcell.EventKey
		// answered is false when no key closed the dialog.
		answered, confirmed bool
	}{
		{"Enter presses Cancel, focused first", []*tcell.EventKey{key(tcell.KeyEnter)}, true, false},
		{"Tab then Enter presses OK", []*tcell.EventKey{key(tcell.KeyTab), key(tcell.KeyEnter)}, true, true},
		{"Right, Left, Enter is Cancel again", []*tcell.EventKey{key(tcell.KeyRight), key(tcell.KeyLeft), key(tcell.KeyEnter)}, true, false},
		{"y confirms", []*tcell.EventKey{r('y')}, true, true},
		{"n cancels even with OK focused", []*tcell.EventKey{key(tcell.KeyTab), r('n')}, true, false},
		{"Esc cancels", []*tcell.EventKey{key(tcell.KeyEscape)}, true, false},
		{"other keys do nothing", []*tcell.EventKey{r('x'), key(tcell.KeyUp)}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answered, confirmed := false, false
			d := New("Drain", "Drain node a?", "Drain", func(ok bool) { answered, confirmed = true, ok })
			for _, k := range tc.keys {
				d.Handle(k)
			}
			if answered != tc.answered || confirmed != tc.confirmed {
				t.Errorf("answered %v confirmed %v, want %v %v", answered, confirmed, tc.answered, tc.confirmed)
			}
		})
	}
}
