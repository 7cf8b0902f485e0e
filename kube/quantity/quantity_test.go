package quantity

import (
	"strings"
	"testing"
)

func TestCheckExponent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		huge bool
	}{
		{"500m", false}, {"2", false}, {"4Gi", false}, {"1E", false}, {"1Ei", false}, {"1e3", false},
		{"1e1000", false}, {"-1e-1000", false}, {"1e0001000", false}, {"1e1001", true}, {"1e-1001", true},
		{"1E99999999", true}, {"1e-99999999", true}, {"+.5e+12345", true}, {"12.5e-000999", false},
		{"", false}, {"e", false}, {"1e", false}, {"1e-", false}, {"1e12x45", false}, {"lots", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			err := CheckExponent(tc.in)
			if (err != nil) != tc.huge {
				t.Fatalf("CheckExponent(%q) = %v, want huge %v", tc.in, err, tc.huge)
			}
			if err != nil && !strings.Contains(err.Error(), "beyond ±1000") {
				t.Errorf("message %q", err)
			}
		})
	}
}
