package localcluster

import (
	"errors"
	"io/fs"
	"testing"
)

func TestEphemeralLow(t *testing.T) {
	for _, tc := range []struct {
		text    string
		want    int
		wantErr bool
	}{
		{"32768\t60999\n", 32768, false},
		{"1024 65535", 1024, false},
		{"", 0, true},
		{"32768", 0, true},
		{"low high", 0, true},
	} {
		got, err := ephemeralLow(tc.text)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ephemeralLow(%q) = %d, %v; want %d, error %t", tc.text, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestFreePorts: the ports differ and, where the kernel says which ports it gives outgoing
// connections, none is among them.
func TestFreePorts(t *testing.T) {
	ports, err := freePorts(7)
	if err != nil {
		t.Fatal(err)
	}
	below, err := ephemeralStart()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		below = 65536 // no range to keep out of
	case err != nil:
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Errorf("port %d given twice in %v", p, ports)
		}
		seen[p] = true
		if below-lowestPort >= 1000 && (p < lowestPort || p >= below) {
			t.Errorf("port %d is outside %d-%d, below the ephemeral range", p, lowestPort, below-1)
		}
	}
}
