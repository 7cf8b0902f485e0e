package plan

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// TestNotesAreBounded: a plan shows at most MaxNotes notes and counts the rest.
func TestNotesAreBounded(t *testing.T) {
	for _, tc := range []struct {
		notes, shown, omitted int
	}{
		{0, 0, 0},
		{MaxNotes, MaxNotes, 0},
		{MaxNotes + 1, MaxNotes, 1},
		{2345 + MaxNotes, MaxNotes, 2345},
	} {
		t.Run(fmt.Sprint(tc.notes), func(t *testing.T) {
			notes := make([]string, tc.notes)
			for i := range notes {
				notes[i] = fmt.Sprintf("note %d", i)
			}
			p := From(&Problem{Input: &scheduling.Input{}}, &scheduling.Results{}, notes)
			if len(p.Notes) != tc.shown || p.NotesOmitted != tc.omitted {
				t.Fatalf("%d notes shown, %d omitted; want %d and %d", len(p.Notes), p.NotesOmitted, tc.shown, tc.omitted)
			}
			var out bytes.Buffer
			if err := Render(&out, p, "table"); err != nil {
				t.Fatal(err)
			}
			more := fmt.Sprintf("... and %d more notes", tc.omitted)
			if got := strings.Contains(out.String(), more); got != (tc.omitted > 0) {
				t.Errorf("table says %q: %v, want %v", more, got, tc.omitted > 0)
			}
		})
	}
}
