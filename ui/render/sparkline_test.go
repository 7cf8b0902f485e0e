package render

import "testing"

func TestSparkline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		width  int
		want   string
		lo, hi float64
	}{
		{"rising", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 8, "▁▂▃▄▅▆▇█", 0, 7},
		{"scaled between least and greatest", []float64{10, 12, 14}, 3, "▁▄█", 10, 14},
		{"short series right-aligned", []float64{1, 2}, 5, "   ▁█", 1, 2},
		{"latest values kept, and their range", []float64{9, 0, 0, 1}, 2, "▁█", 0, 1},
		{"flat zero", []float64{0, 0, 0}, 3, "▁▁▁", 0, 0},
		{"flat non-zero", []float64{2.5, 2.5}, 2, "▄▄", 2.5, 2.5},
		{"no width", []float64{1}, 0, "", 0, 0},
		{"empty", nil, 3, "   ", 0, 0},
	} {
		got, lo, hi := Sparkline(tc.values, tc.width)
		if got != tc.want || lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: Sparkline(%v, %d) = %q, %v-%v; want %q, %v-%v", tc.name, tc.values, tc.width, got, lo, hi, tc.want, tc.lo, tc.hi)
		}
	}
}
