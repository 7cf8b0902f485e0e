package model

import (
	"testing"
	"time"
)

func TestTrendRecord(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	fleet := func(perHour float64, pending, nodes int) Fleet {
		return Fleet{PerHour: perHour, Pending: pending, Nodes: nodes}
	}
	var tr Trend
	tr = tr.Record(t0, fleet(1, 0, 2))
	tr = tr.Record(t0.Add(3*time.Second), fleet(1.5, 4, 2)) // the same step: its latest figures
	if len(tr.Points) != 1 || tr.Points[0].PerHour != 1.5 || tr.Points[0].Pending != 4 {
		t.Fatalf("same step: %+v", tr.Points)
	}
	before := tr
	tr = tr.Record(t0.Add(TrendStep), fleet(2, 0, 3))
	if len(tr.Points) != 2 || len(before.Points) != 1 || before.Points[0].PerHour != 1.5 {
		t.Fatalf("a new step: %+v (the old trend: %+v)", tr.Points, before.Points)
	}
	for at := 2 * TrendStep; at <= TrendWindow+time.Minute; at += TrendStep {
		tr = tr.Record(t0.Add(at), fleet(2, 0, 3))
	}
	if want := int(TrendWindow/TrendStep) + 1; len(tr.Points) != want {
		t.Errorf("%d points after %s, want the window's %d", len(tr.Points), TrendWindow+time.Minute, want)
	}
	if age := t0.Add(TrendWindow + time.Minute).Sub(tr.Points[0].At); age > TrendWindow {
		t.Errorf("oldest point %s old, beyond the window", age)
	}
	if back := tr.Record(t0, fleet(1, 0, 1)); len(back.Points) != 1 {
		t.Errorf("a clock that went back kept %d points", len(back.Points))
	}
}
