package render

import (
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ got, want string }{
		{Dollars(0.0336), "$0.034"},
		{Dollars(12.5), "$12.50"},
		{Dollars(1234.5), "$1,234.50"},
		{Dollars(-0.5), "-$0.500"},
		{Monthly(2.268), "$1,656"},
		{Monthly(0), "$0"},
		{CPU(250), "250m"},
		{CPU(2000), "2"},
		{CPU(1500), "1.5"},
		{Mem(512 << 20), "512Mi"},
		{Mem(8 << 30), "8Gi"},
		{Mem(15784 << 20), "15.4Gi"},
		{Mem(0), "0"},
		{Percent(1, 3), "33%"},
		{Percent(1, 0), "-"},
		{Age(now, now.Add(-90*time.Second)), "90s"},
		{Age(now, time.Time{}), "-"},
		{Countdown(now, now.Add(3*time.Minute+12*time.Second)), "in 3m12s"},
		{Countdown(now, now.Add(6*time.Hour)), "in 6h"},
		{Countdown(now, now.Add(-time.Second)), "now"},
		{Plural(1, "node"), "1 node"},
		{Plural(3, "node"), "3 nodes"},
		{Truncate("consolidation", 6), "conso…"},
		{Truncate("abc", 6), "abc"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
