package ui

import (
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/render"
)

func TestGridSkipsGroupsAndKeepsTheCursorOnItsObject(t *testing.T) {
	cols := []render.Column{{Name: "NAME"}}
	row := func(key string, level render.Level) *render.Row {
		return &render.Row{Key: key, Cells: []string{key}, Level: level}
	}
	table := func(rows ...*render.Row) *render.Table {
		return render.Build(cols, rows, render.Query{Sort: render.Unsorted()}, nil)
	}
	g := newGrid(cols, nil)
	g.page = 2
	g.setTable(table(row("spot", render.LevelGroup), row("a", render.LevelObject), row("zone", render.LevelSubgroup), row("b", render.LevelObject), row("c", render.LevelObject)))
	if g.row().Key != "a" {
		t.Fatalf("starts on %s", g.row().Key)
	}
	key := func(k tcell.Key) { g.handle(tcell.NewEventKey(k, 0, tcell.ModNone)) }
	key(tcell.KeyDown)
	if g.row().Key != "b" {
		t.Errorf("down skips the group: %s", g.row().Key)
	}
	key(tcell.KeyUp)
	key(tcell.KeyUp)
	if g.row().Key != "a" {
		t.Errorf("up stops on the first object: %s", g.row().Key)
	}
	key(tcell.KeyEnd)
	if g.row().Key != "c" {
		t.Errorf("end: %s", g.row().Key)
	}
	g.setTable(table(row("c", render.LevelObject), row("a", render.LevelObject)))
	if g.row().Key != "c" || g.selected != 0 {
		t.Errorf("the cursor left c: %s at %d", g.row().Key, g.selected)
	}
	g.setTable(table(row("x", render.LevelObject)))
	if g.row().Key != "x" {
		t.Errorf("c gone: %s", g.row().Key)
	}
	g.setTable(table())
	if g.row() != nil {
		t.Errorf("empty table has a row")
	}
	key(tcell.KeyDown)
}

func TestPutCellAlignsAndCuts(t *testing.T) {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(20, 1)
	st := tcell.StyleDefault
	x := putCell(s, 0, 0, 6, "ab", render.AlignRight, st)
	x += putCell(s, x, 0, 5, "consolidation", render.AlignLeft, st)
	x += putCell(s, x, 0, 4, "é", render.AlignLeft, st)
	s.Show()
	cells, _, _ := s.GetContents()
	got := ""
	for _, c := range cells[:x] {
		got += string(c.Runes)
	}
	if got != "    abcons…é   " {
		t.Errorf("%q", got)
	}
}
