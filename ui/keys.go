package ui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// key is a key as the operator presses it: a rune, or a special key.
type key struct {
	code tcell.Key
	r    rune
}

func runeKey(r rune) key      { return key{code: tcell.KeyRune, r: r} }
func codeKey(k tcell.Key) key { return key{code: k} }
func (k key) isRune() bool    { return k.code == tcell.KeyRune }
func (k key) upper() bool     { return k.isRune() && k.r >= 'A' && k.r <= 'Z' }
func (k key) matches(ev *tcell.EventKey) bool {
	if k.isRune() {
		return ev.Key() == tcell.KeyRune && ev.Rune() == k.r
	}
	return ev.Key() == k.code
}

// String names the key as the hints and help show it: "c", "Shift-N", "Ctrl-D", "Enter".
func (k key) String() string {
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

// perm is what an action needs from the mode the console runs in.
type perm uint8

const (
	// permRead actions only look: always allowed.
	permRead perm = iota
	// permSteer actions steer the autoscaler or the demo (pause, scale, interrupt): not in
	// read-only mode.
	permSteer
	// permWrite actions change the cluster by hand (cordon, drain, delete): not in read-only
	// mode, nor in dry-run mode, which changes nothing.
	permWrite
)

// denied says why the mode forbids an action, or "" when it is allowed.
func (p perm) denied(i Info) string {
	switch {
	case p == permRead:
		return ""
	case i.ReadOnly:
		return "read-only (--readonly writes nothing)"
	case p == permWrite && i.DryRun:
		return "dry-run (--dry-run changes nothing)"
	}
	return ""
}

// action is one key of a view: the registry entry that gives the hint line, the help screen and
// what read-only mode removes.
type action struct {
	key  key
	name string
	// help is the help screen's sentence.
	help string
	perm perm
	// hint shows the action in the hint line (all actions are in the help screen); sort
	// actions share one hint ("<Shift-N/A/C> sort").
	hint, sort bool
	do         func()
}

// keymap is an ordered set of actions; earlier entries win.
type keymap []action

// find returns the action bound to an event.
func (m keymap) find(ev *tcell.EventKey) (action, bool) {
	for _, a := range m {
		if a.key.matches(ev) {
			return a, true
		}
	}
	return action{}, false
}

// allowed keeps the actions the mode permits, without duplicate keys.
func (m keymap) allowed(i Info) keymap {
	out := make(keymap, 0, len(m))
	seen := map[key]bool{}
	for _, a := range m {
		if seen[a.key] || a.perm.denied(i) != "" {
			continue
		}
		seen[a.key] = true
		out = append(out, a)
	}
	return out
}

// hints are the actions of the hint line.
func (m keymap) hints(i Info) keymap {
	var out keymap
	for _, a := range m.allowed(i) {
		if a.hint {
			out = append(out, a)
		}
	}
	return out
}

// sortKeys lists the Shift-letters of a keymap in one hint ("Shift-N/A/C: sort").
func (m keymap) sortKeys() string {
	var letters []string
	for _, a := range m {
		if a.sort {
			letters = append(letters, string(a.key.r))
		}
	}
	return strings.Join(letters, "/")
}
