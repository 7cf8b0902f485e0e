package ui_test

import (
	"os"
	"testing"
)

func TestSmokeScreens(t *testing.T) {
	if os.Getenv("SMOKE") == "" {
		t.Skip("SMOKE=1 prints screens")
	}
	h := small(t, 140, 40)
	for _, k := range []string{"", ":nodes<Enter>", "x", "<Esc><Down><Down>x", "<Esc>d", "<Esc>y", "<Esc>?", "<Esc>:np<Enter>", "x", "<Esc><Enter>", ":pods<Enter>", ":dec<Enter>", "<Down><Down><Down><Down><Down><Down><Down><Down><Enter>", ":int<Enter>", ":ev<Enter>", ":skins<Enter>", ":nc<Enter>", ":pending<Enter>", "x", "<Esc>/-l app=inflate<Enter>"} {
		h.keys(k)
		t.Log(k + "\n" + h.draw())
	}
}
