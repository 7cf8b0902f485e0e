package keymap

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestModes(t *testing.T) {
	km := Map{
		{Key: Rune('d'), Name: "describe", Hint: true},
		{Key: Rune('c'), Name: "cordon", Perm: Write, Hint: true},
		{Key: Rune('p'), Name: "pause", Perm: Steer, Hint: true},
		{Key: Rune('N'), Name: "sort name", Sort: true},
		{Key: Rune('d'), Name: "shadowed"},
	}
	names := func(m Map) string {
		var out []string
		for _, a := range m {
			out = append(out, a.Name)
		}
		return strings.Join(out, ", ")
	}
	for _, tc := range []struct {
		name string
		mode Mode
		want string
	}{
		{"running", Mode{}, "describe, cordon, pause, sort name"},
		{"dry-run", Mode{DryRun: true}, "describe, pause, sort name"},
		{"read-only", Mode{ReadOnly: true}, "describe, sort name"},
	} {
		if got := names(km.Allowed(tc.mode)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := names(km.Hints(Mode{ReadOnly: true})); got != "describe" {
		t.Errorf("read-only hints: %s", got)
	}
	if km.SortKeys() != "N" {
		t.Errorf("sort keys %q", km.SortKeys())
	}
	if a, ok := km.Find(tcell.NewEventKey(tcell.KeyCtrlD, 'd', tcell.ModCtrl)); ok {
		t.Errorf("Ctrl-D found %s", a.Name)
	}
	if a, ok := km.Find(tcell.NewEventKey(tcell.KeyRune, 'd', tcell.ModNone)); !ok || a.Name != "describe" {
		t.Errorf("d found %q, %v; want describe, the first bound", a.Name, ok)
	}
}

func TestKeyString(t *testing.T) {
	for k, want := range map[Key]string{Rune('N'): "Shift-N", Code(tcell.KeyCtrlD): "Ctrl-D", Code(tcell.KeyEscape): "Esc",
		Rune('/'): "/", Code(tcell.KeyEnter): "Enter", Code(tcell.KeyBacktab): "Shift-Tab"} {
		if k.String() != want {
			t.Errorf("%v: %s, want %s", k, k.String(), want)
		}
	}
}

func TestDenied(t *testing.T) {
	for _, tc := range []struct {
		perm Perm
		mode Mode
		want string
	}{
		{Read, Mode{ReadOnly: true}, ""},
		{Steer, Mode{DryRun: true}, ""},
		{Steer, Mode{ReadOnly: true}, "read-only"},
		{Write, Mode{DryRun: true}, "dry-run"},
		{Write, Mode{ReadOnly: true, DryRun: true}, "read-only"},
		{Write, Mode{}, ""},
	} {
		got := tc.perm.Denied(tc.mode)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%d in %+v: %q, want %q", tc.perm, tc.mode, got, tc.want)
		}
	}
}
