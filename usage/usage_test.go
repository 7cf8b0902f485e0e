package usage

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []int64
		p    float64
		want int64
	}{
		{"none", nil, 0.95, 0},
		{"one", []int64{7}, 0.95, 7},
		{"p95 of 20 is the 19th", []int64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.95, 19},
		{"p50 of 4 is the 2nd", []int64{40, 10, 30, 20}, 0.5, 20},
		{"p100 is the max", []int64{3, 9, 1}, 1, 9},
		{"p0 is the min", []int64{3, 9, 1}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.xs, tc.p); got != tc.want {
				t.Errorf("Percentile(%v, %v) = %d, want %d", tc.xs, tc.p, got, tc.want)
			}
		})
	}
}

func TestWindow(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	point := func(at time.Duration, cpu, mem int64) Point {
		return Point{Time: t0.Add(at), Containers: map[string]Use{"app": {CPU: cpu, Mem: mem}}}
	}
	w := NewWindow(10 * time.Minute)
	w.Add(Reading{Time: t0, Pods: map[string]Point{"a/web-1": point(0, 100, 50), "a/web-2": point(0, 300, 80)}})
	// The same scrape read again counts once.
	w.Add(Reading{Time: t0.Add(5 * time.Second), Pods: map[string]Point{"a/web-1": point(0, 100, 50)}})
	w.Add(Reading{Time: t0.Add(time.Minute), Pods: map[string]Point{"a/web-1": point(time.Minute, 200, 60)}})

	if got := w.Points(); got != 3 {
		t.Errorf("%d points, want 3 (the scrape read twice counts once)", got)
	}
	if got, want := w.Stats([]string{"a/web-1", "a/web-2"}, "app", 0.95), (Stats{Samples: 3, CPU: 300, Mem: 80}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	if got, want := w.Stats([]string{"a/web-1"}, "app", 0.5), (Stats{Samples: 2, CPU: 100, Mem: 60}); got != want {
		t.Errorf("Stats of web-1 = %+v, want %+v", got, want)
	}
	if got := w.Stats([]string{"a/web-1"}, "sidecar", 0.95); got != (Stats{}) {
		t.Errorf("Stats of a container never seen = %+v, want none", got)
	}

	// Eleven minutes on, the first scrape has left the window, and web-2 with it.
	w.Add(Reading{Time: t0.Add(11 * time.Minute), Pods: map[string]Point{"a/web-1": point(11*time.Minute, 150, 40)}})
	if got, want := w.Pods(), []string{"a/web-1"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("Pods = %v, want %v", got, want)
	}
	if got, want := w.Stats([]string{"a/web-1", "a/web-2"}, "app", 1), (Stats{Samples: 2, CPU: 200, Mem: 60}); got != want {
		t.Errorf("Stats after the span = %+v, want %+v", got, want)
	}
}

func TestPointTotal(t *testing.T) {
	p := Point{Containers: map[string]Use{"app": {CPU: 100, Mem: 10}, "sidecar": {CPU: 5, Mem: 2}}}
	if got, want := p.Total(), (Use{CPU: 105, Mem: 12}); got != want {
		t.Errorf("Total = %+v, want %+v", got, want)
	}
}
