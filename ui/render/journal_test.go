package render

import (
	"testing"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
)

func TestIsDecision(t *testing.T) {
	for _, tc := range []struct {
		kind    journal.Kind
		reason  journal.Reason
		forbids bool
		want    bool
	}{
		{journal.KindDisruption, "Underutilized", false, true},
		{journal.KindDisruption, disruption.ReasonCandidatesDeleted, false, true},
		{journal.KindValidation, disruption.BlockedValidationRejected, false, true},
		// a rule forbids it: among the decisions
		{journal.KindBlocked, disruption.BlockedBudget, true, true},
		{journal.KindBlocked, disruption.BlockedPDB, true, true},
		// states a node passes through, and findings that a disruption would not pay: explain and :events
		{journal.KindBlocked, disruption.BlockedNominated, false, false},
		{journal.KindBlocked, disruption.BlockedConsolidateAfter, false, false},
		{journal.KindLaunch, "", false, false},
		{journal.KindInterruption, "SpotInterruption", false, false},
	} {
		e := &journal.Entry{Kind: tc.kind, Reason: tc.reason, Forbids: tc.forbids}
		if got := IsDecision(e); got != tc.want {
			t.Errorf("IsDecision(%s %s) = %v, want %v", tc.kind, tc.reason, got, tc.want)
		}
		// every blocker keeps the blocked tone in :events
		if tc.kind == journal.KindBlocked && EventRow(e, e.Time).Tone != ToneBlocked {
			t.Errorf("EventRow(%s %s).Tone = %v, want ToneBlocked", tc.kind, tc.reason, EventRow(e, e.Time).Tone)
		}
	}
}
