package ui

import (
	"testing"
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
