package render

import "testing"

func TestBar(t *testing.T) {
	for _, tc := range []struct {
		name            string
		requested, used float64
		hasUse          bool
		want            string
		tone            Tone
	}{
		{"requests only", 0.5, 0, false, "████░░░░", ToneInherit},
		{"used within requests", 0.75, 0.25, true, "██▒▒▒▒░░", ToneInherit},
		{"used beyond requests", 0.25, 0.5, true, "████░░░░", ToneWarning},
		{"nothing", 0, 0, true, "░░░░░░░░", ToneInherit},
		{"over the whole", 1.5, 0, false, "████████", ToneInherit},
	} {
		if got := Bar(tc.requested, tc.used, tc.hasUse, 8); got != tc.want {
			t.Errorf("%s: Bar = %q, want %q", tc.name, got, tc.want)
		}
		if got := BarTone(tc.requested, tc.used, tc.hasUse); got != tc.tone {
			t.Errorf("%s: BarTone = %v, want %v", tc.name, got, tc.tone)
		}
	}
}
