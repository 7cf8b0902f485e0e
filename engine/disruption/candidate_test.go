package disruption

import (
	"testing"

	"github.com/nodepilot/nodepilot/engine/journal"
)

func TestForbidden(t *testing.T) {
	for _, tc := range []struct {
		reason journal.Reason
		want   bool
	}{
		// rules the operator set: the console lists them among decisions
		{BlockedBudget, true},
		{BlockedPDB, true},
		{BlockedDoNotDisrupt, true},
		{BlockedSpotToSpot, true},
		// states a node passes through, and findings that disrupting it would not pay
		{BlockedNominated, false},
		{BlockedNotInitialized, false},
		{BlockedDisrupting, false},
		{BlockedConsolidateAfter, false},
		{BlockedPolicy, false},
		{BlockedNoCheaperType, false},
		{BlockedNeedsReplacements, false},
		{BlockedPodsCannotMove, false},
		{BlockedStatic, false},
	} {
		if got := Forbidden(tc.reason); got != tc.want {
			t.Errorf("Forbidden(%s) = %v, want %v", tc.reason, got, tc.want)
		}
	}
}
