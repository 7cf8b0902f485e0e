// Package keymap is the console's key registry: the keys each view binds, what each needs from
// the mode the console runs in, and the hint line and help screen made from them.
package keymap

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// Key is a key as the operator presses it: a rune, or a special key.
type Key struct {
	code tcell.Key
	r    rune
}

// Rune is the key that types r.
func Rune(r rune) Key { return Key{code: tcell.KeyRune, r: r} }

// Code is a special key (Enter, Esc, Ctrl-D...).
func Code(k tcell.Key) Key { return Key{code: k} }

func (k Key) isRune() bool { return k.code == tcell.KeyRune }
func (k Key) upper() bool  { return k.isRune() && k.r >= 'A' && k.r <= 'Z' }

// Matches reports whether a key event is this key.
func (k Key) Matches(ev *tcell.EventKey) bool {
	if k.isRune() {
		return ev.Key() == tcell.KeyRune && ev.Rune() == k.r
	}
	return ev.Key() == k.code
}

// String names the key as the hints and help show it: "c", "Shift-N", "Ctrl-D", "Enter".
func (k Key) String() string {
	switch {
	case k.upper():
		return "Shift-" + string(k.r)
	case k.isRune():
		return string(k.r)
	case k.code >= tcell.KeyCtrlA && k.code <= tcell.KeyCtrlZ:
		return fmt.Sprintf("Ctrl-%c", 'A'+rune(k.code-tcell.KeyCtrlA))
	}
	switch k.code {
	case tcell.KeyEnter:
		return "Enter"
	case tcell.KeyEscape:
		return "Esc"
	case tcell.KeyTab:
		return "Tab"
	case tcell.KeyBacktab:
		return "Shift-Tab"
	}
	return tcell.KeyNames[k.code]
}

// Mode is what the console runs as, as far as its keys care.
type Mode struct {
	// ReadOnly: nothing writes to the cluster. DryRun: the autoscaler changes nothing.
	ReadOnly, DryRun bool
}

// Perm is what an action needs from the mode the console runs in.
type Perm uint8

const (
	// Read actions only look: always allowed.
	Read Perm = iota
	// Steer actions steer the autoscaler or the demo (pause, scale, interrupt): not in read-only
	// mode.
	Steer
	// Write actions change the cluster by hand (cordon, drain, delete): not in read-only mode,
	// nor in dry-run mode, which changes nothing.
	Write
)

// Denied says why the mode forbids an action, or "" when it is allowed.
func (p Perm) Denied(m Mode) string {
	switch {
	case p == Read:
		return ""
	case m.ReadOnly:
		return "read-only (--readonly writes nothing)"
	case p == Write && m.DryRun:
		return "dry-run (--dry-run changes nothing)"
	}
	return ""
}

// Action is one key of a view: the registry entry that gives the hint line, the help screen and
// what read-only mode removes.
type Action struct {
	Key  Key
	Name string
	// Help is the help screen's sentence.
	Help string
	Perm Perm
	// Hint shows the action in the hint line (all actions are in the help screen); sort
	// actions share one hint ("<Shift-N/A/C> sort").
	Hint, Sort bool
	Do         func()
}

// Map is an ordered set of actions; earlier entries win.
type Map []Action

// Find returns the action bound to an event.
func (m Map) Find(ev *tcell.EventKey) (Action, bool) {
	for _, a := range m {
		if a.Key.Matches(ev) {
			return a, true
		}
	}
	return Action{}, false
}

// Allowed keeps the actions the mode permits, without duplicate keys.
func (m Map) Allowed(mode Mode) Map {
	out := make(Map, 0, len(m))
	seen := map[Key]bool{}
	for _, a := range m {
		if seen[a.Key] || a.Perm.Denied(mode) != "" {
			continue
		}
		seen[a.Key] = true
		out = append(out, a)
	}
	return out
}

// Hints are the actions of the hint line.
func (m Map) Hints(mode Mode) Map {
	var out Map
	for _, a := range m.Allowed(mode) {
		if a.Hint {
			out = append(out, a)
		}
	}
	return out
}

// SortKeys lists the Shift-letters of a map in one hint ("Shift-N/A/C: sort").
func (m Map) SortKeys() string {
	var letters []string
	for _, a := range m {
		if a.Sort {
			letters = append(letters, string(a.Key.r))
		}
	}
	return strings.Join(letters, "/")
}
