package render

import "testing"

func TestSparkline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		width  int
		want   string
	}{
		{"rising", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 8, "▁▂▃▄▅▆▇█"},
		{"scaled between least and greatest", []float64{10, 12, 14}, 3, "▁▄█"},
		{"short series right-aligned", []float64{1, 2}, 5, "   ▁█"},
		{"latest values kept", []float64{9, 0, 0, 1}, 2, "▁█"},
		{"flat zero", []float64{0, 0, 0}, 3, "▁▁▁"},
		{"flat non-zero", []float64{2.5, 2.5}, 2, "▄▄"},
		{"no width", []float64{1}, 0, ""},
		{"empty", nil, 3, "   "},
	} {
		if got := Sparkline(tc.values, tc.width); got != tc.want {
			t.Errorf("%s: Sparkline(%v, %d) = %q, want %q", tc.name, tc.values, tc.width, got, tc.want)
		}
	}
}
