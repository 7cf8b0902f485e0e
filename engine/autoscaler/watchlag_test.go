package autoscaler_test

import (
	"testing"
	"time"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
)

// TestCreatedNodeClaimsCountBeforeTheirWatchEvent: the cluster state hears of every change two
// rounds of the loops late, as an informer's watch event arrives after the write it reports. A NodeClaim the engine created counts from its creation: the provisioner
// does not create a second one for the same pods, and a consolidation's replacement is waited
// for, not taken for failed because the next pass does not see it yet.
func TestCreatedNodeClaimsCountBeforeTheirWatchEvent(t *testing.T) {
	h := newHarness(t)
	h.API.SetWatchLag(2)
	h.NodePool("default", consolidateAfter(0))
	h.Deployment("big", 1, enginetest.Resources("6", ""))
	h.Deployment("small", 1, enginetest.Resources("500m", ""))
	h.Advance(time.Minute, time.Second)
	if n := len(h.API.NodeClaims()); n != 1 {
		t.Fatalf("%d nodeclaims for two pods that fit one node, want 1", n)
	}

	h.Scale("big", 0)
	h.Advance(3*time.Minute, time.Second)
	for _, e := range h.entries(journal.KindDisruption) {
		if e.Reason == disruption.ReasonAbandoned {
			t.Errorf("a command was abandoned: %s", e.Message)
		}
	}
	d := h.decisions(false)
	if len(d) != 1 || d[0].Decision != "replace" {
		t.Fatalf("decisions %+v, want one replace", d)
	}
	if n := len(h.API.NodeClaims()); n != 1 {
		t.Errorf("%d nodeclaims after the replace, want the replacement alone", n)
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
}
