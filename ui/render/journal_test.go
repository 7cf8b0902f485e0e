package render

import (
	"testing"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
)

func TestIsDecision(t *testing.T) {
	for _, tc := range []struct {
		kind   journal.Kind
		reason journal.Reason
		want   bool
	}{
		{journal.KindDisruption, "Underutilized", true},
		{journal.KindDisruption, disruption.ReasonCandidatesDeleted, true},
		{journal.KindValidation, disruption.BlockedValidationRejected, true},
		{journal.KindBlocked, disruption.BlockedBudget, true},
		{journal.KindBlocked, disruption.BlockedPDB, true},
		{journal.KindBlocked, disruption.BlockedDoNotDisrupt, true},
		{journal.KindBlocked, disruption.BlockedSpotToSpot, true},
		// states a node passes through, and findings that a disruption would not pay: explain and :events
		{journal.KindBlocked, disruption.BlockedNominated, false},
		{journal.KindBlocked, disruption.BlockedNotInitialized, false},
		{journal.KindBlocked, disruption.BlockedConsolidateAfter, false},
		{journal.KindBlocked, disruption.BlockedNoCheaperType, false},
		{journal.KindLaunch, "", false},
		{journal.KindInterruption, "SpotInterruption", false},
	} {
		e := &journal.Entry{Kind: tc.kind, Reason: tc.reason}
		if got := IsDecision(e); got != tc.want {
			t.Errorf("IsDecision(%s %s) = %v, want %v", tc.kind, tc.reason, got, tc.want)
		}
		// every blocker keeps the blocked tone in :events
		if tc.kind == journal.KindBlocked && EventRow(e, e.Time).Tone != ToneBlocked {
			t.Errorf("EventRow(%s %s).Tone = %v, want ToneBlocked", tc.kind, tc.reason, EventRow(e, e.Time).Tone)
		}
	}
}
