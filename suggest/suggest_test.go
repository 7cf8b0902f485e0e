package suggest

import "testing"

func TestNearestKey(t *testing.T) {
	names := []string{"charts", "help", "logs", "picker", "table", "xray", "yaml"}
	tests := []struct {
		key, want string
		ok        bool
	}{
		{"tabel", "table", true},
		{"Table", "table", true},
		{"yml", "yaml", true},
		{"tables", "table", true},
		{"xyz", "", false},
		{"dashboard", "", false},
	}
	for _, tt := range tests {
		got, ok := Nearest(tt.key, names)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
	if d := editDistance("fgColour", "fgColor"); d != 1 {
		t.Errorf("editDistance(fgColour, fgColor) = %d, want 1", d)
	}
	if d := editDistance("ab", "ba"); d != 1 {
		t.Errorf("a swap costs 1, got %d", d)
	}
}
