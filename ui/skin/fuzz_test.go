package skin

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/skins"
)

// seeds are the k9s skins, the shipped skins and the error cases (aliases and merge keys
// among them).
func seeds(tb testing.TB) [][]byte {
	var out [][]byte
	k9s, _ := filepath.Glob(filepath.Join("testdata", "k9s", "*.yaml"))
	for _, path := range k9s {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	for _, name := range Shipped() {
		data, err := fs.ReadFile(skins.FS(), name+".yaml")
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	for _, seed := range []string{
		"", "k9s:\n  views:\n    tabel: {}\n", "nodepilot:\n  cheapBelow: cheap\n", "k9s:\n  body: &b\n    <<: *b\n",
		"a: &a [*a]\nk9s: *a\n", "nodepilot:\n  zoneColors: [red, *x]\n", "k9s: {frame: {menu: {fgStyle: dim}}}\n",
		"x: &x {<<: [*x, *x]}\nk9s: {body: *x}\n", "nodepilot: {cheapBelow: 1e308, dearAbove: 0x10}\n",
	} {
		out = append(out, []byte(seed))
	}
	return out
}

// TestParseSeeds holds every seed to FuzzParse's properties. The whole skins are checked here
// rather than fed to the fuzzer: mutating multi-kilobyte YAML with aliases stalled the fuzz
// engine at a few executions in ten seconds.
func TestParseSeeds(t *testing.T) {
	for _, data := range seeds(t) {
		checkParse(t, data)
	}
}

// FuzzParse feeds Parse arbitrary bytes from small seeds (a line or two of each part of a
// skin): it must never panic, and returns either a usable skin or an error naming the file.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"", "k9s:\n  body:\n    fgColor: red\n", "k9s: {frame: {menu: {fgStyle: dim}}}\n", "k9s:\n  views:\n    table: {}\n",
		"nodepilot:\n  cheapBelow: 0.1\n  dearAbove: 1\n", "nodepilot:\n  zoneColors: [red, blue]\n", "a: &a 1\nk9s: {body: {fgColor: *a}}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(checkParse)
}

// checkParse holds one input to Parse's contract.
func checkParse(t *testing.T, data []byte) {
	s, err := Parse("fuzz.yaml", data)
	if err != nil {
		if s != nil {
			t.Errorf("Parse returned a skin with its error %v", err)
		}
		if !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
			t.Errorf("error %q does not name the file", err)
		}
		return
	}
	n := s.Nodepilot
	if len(n.Zones) == 0 {
		t.Errorf("a valid skin with no zone colors")
	}
	for _, v := range []float64{n.CheapBelow, n.DearAbove} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("threshold %g", v)
		}
	}
	if n.CheapBelow > n.DearAbove {
		t.Errorf("cheapBelow %g above dearAbove %g", n.CheapBelow, n.DearAbove)
	}
}
