package autoscaler_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// running counts the instances still running.
func (h *harness) running() int {
	n := 0
	for _, i := range h.Cloud.Instances() {
		if i.State == enginetest.InstanceRunning {
			n++
		}
	}
	return n
}

// decisions returns the journal's disruption decisions (not dry runs unless asked).
func (h *harness) decisions(dryRun bool) []journal.Entry {
	var out []journal.Entry
	for _, e := range h.entries(journal.KindDisruption) {
		if e.Decision != "" && e.DryRun == dryRun {
			out = append(out, e)
		}
	}
	return out
}

// whyNot returns the current blocker of the only managed node.
func (h *harness) whyNot(t *testing.T) journal.Entry {
	t.Helper()
	nodes := h.managedNodes()
	if len(nodes) != 1 {
		t.Fatalf("%d managed nodes, want 1", len(nodes))
	}
	e, ok := h.journal.WhyNot(nodes[0].Name())
	if !ok {
		t.Fatalf("node %s has no recorded blocker", nodes[0].Name())
	}
	return e
}

func TestEmptyNodeIsRemovedAfterConsolidateAfter(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Minute))
	h.Deployment("inflate", 5, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	h.Scale("inflate", 0)
	h.Advance(30*time.Second, time.Second)
	if why := h.whyNot(t); why.Reason != disruption.BlockedConsolidateAfter || why.Until.IsZero() {
		t.Errorf("within consolidateAfter the node should wait, with its deadline: %+v", why)
	}
	h.Advance(2*time.Minute, time.Second)
	if n := len(h.managedNodes()); n != 0 || h.running() != 0 {
		t.Fatalf("%d nodes and %d running instances left after the node emptied", n, h.running())
	}
	d := h.decisions(false)
	if len(d) != 1 || d[0].Method != disruption.MethodEmptiness || d[0].Reason != "Empty" || d[0].PriceBefore <= 0 || d[0].PriceAfter != 0 {
		t.Errorf("decisions %+v", d)
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
}

// TestConsolidationReplacesAnOversizedNodeWithACheaperOne, under both policies that consolidate
// underutilized nodes: under Balanced the move saves most of the NodePool's cost for all of its
// disruption (one node), a score above the bar.
func TestConsolidationReplacesAnOversizedNodeWithACheaperOne(t *testing.T) {
	for _, p := range []karpv1.ConsolidationPolicy{karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.ConsolidationPolicyBalanced} {
		t.Run(string(p), func(t *testing.T) {
			h := newHarness(t)
			h.NodePool("default", consolidateAfter(0), policy(p))
			h.Deployment("big", 1, enginetest.Resources("6", ""))
			h.Deployment("small", 1, enginetest.Resources("500m", ""))
			h.Advance(time.Minute, time.Second)
			before := h.HourlyCost()
			h.Scale("big", 0)
			h.Advance(3*time.Minute, time.Second)
			d := h.decisions(false)
			if len(d) == 0 {
				t.Fatal("no consolidation decision")
			}
			last := d[len(d)-1]
			if last.Decision != "replace" || last.PriceAfter >= last.PriceBefore {
				t.Errorf("want a replace that saves money, got %+v", last)
			}
			if after := h.HourlyCost(); after >= before {
				t.Errorf("fleet costs $%.4f/h after consolidation, $%.4f/h before", after, before)
			}
			// The replacement hears, as in Karpenter, that it is launched and waited on.
			got := map[string]bool{}
			for _, e := range h.API.Events() {
				if e.Kind == karpv1.KindNodeClaim {
					got[e.Reason] = true
				}
			}
			if !got["DisruptionLaunching"] || !got["DisruptionWaitingReadiness"] {
				t.Errorf("nodeclaim events %v lack DisruptionLaunching or DisruptionWaitingReadiness", got)
			}
			// A Balanced NodePool's move says how it scored, on the candidate, as Karpenter's.
			if approved := got["ConsolidationApproved"]; approved != (p == karpv1.ConsolidationPolicyBalanced) {
				t.Errorf("ConsolidationApproved on a nodeclaim: %v, want it only for Balanced", approved)
			}
			// Karpenter's metrics count the move under either policy, and score it under Balanced.
			moves := h.measured.Of(journal.MeasureConsolidationMove)
			if !slices.ContainsFunc(moves, func(m journal.Measurement) bool {
				return m.Decision == "approved" && m.NodePool == "default" && m.Policy == string(p)
			}) {
				t.Errorf("no approved move measured for nodepool default under %s: %+v", p, moves)
			}
			scores := h.measured.Of(journal.MeasureConsolidationScore)
			if scored := len(scores) > 0; scored != (p == karpv1.ConsolidationPolicyBalanced) {
				t.Errorf("scores measured: %+v, want some only for Balanced", scores)
			}
			for _, s := range scores {
				if s.Decision == "approved" && s.Value < 0.5 {
					t.Errorf("approved with score %v, under the bar", s.Value)
				}
			}
			// Each disruption method measures how many nodes it could consider and how long it took.
			methods := map[string]bool{}
			for _, m := range h.measured.Of(journal.MeasureEvaluation) {
				methods[m.Method] = true
			}
			for _, m := range []string{disruption.MethodEmptiness, disruption.MethodDrift, disruption.MethodSingleNode, disruption.MethodMultiNode} {
				if !methods[m] {
					t.Errorf("%s never measured its evaluation (measured: %v)", m, methods)
				}
			}
			if !slices.ContainsFunc(h.measured.Of(journal.MeasureEligibleNodes), func(m journal.Measurement) bool {
				return m.Method == disruption.MethodSingleNode && m.Value >= 1
			}) {
				t.Error("consolidation never measured an eligible node")
			}
			// The candidate's NodeClaim said why it was disrupted, and its drain said it too.
			drained := false
			for _, e := range h.entries(journal.KindTermination) {
				if e.Reason == "Evicted" {
					drained = true
					if e.DisruptionReason != string(karpv1.DisruptionReasonUnderutilized) {
						t.Errorf("eviction of %v says disruption reason %q, want Underutilized", e.Pods, e.DisruptionReason)
					}
				}
			}
			if !drained {
				t.Error("no eviction journaled")
			}
			// The provisioner measured how long the pods waited for their first decision.
			if n := len(h.measured.Of(journal.MeasureSchedulingDecision)); n < 2 {
				t.Errorf("%d scheduling decisions measured, want one per pod (2 or more)", n)
			}
			// Each solve said its queue while running, and that it ended, under one id.
			queued, ended := h.measured.Of(journal.MeasureSolveQueue), h.measured.Of(journal.MeasureSolveDone)
			if len(queued) == 0 || len(ended) == 0 || queued[0].SchedulingID != ended[0].SchedulingID || queued[0].Controller != "provisioner" {
				t.Errorf("solve progress measured %+v, ends %+v; want the first solve's queue and end under one id", queued, ended)
			}
			if err := h.CheckConverged(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReplacementUnderATightLimit: a NodePool whose limit holds its node but not the node and a
// replacement together still consolidates, as Karpenter does: the candidate leaves the NodePool's
// usage in the simulation and once taken, so the cheaper replacement launches under the limit.
func TestReplacementUnderATightLimit(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(0), enginetest.Limit(corev1.ResourceCPU, "9"))
	h.Deployment("big", 1, enginetest.Resources("6", ""))
	h.Deployment("small", 1, enginetest.Resources("500m", ""))
	h.Advance(time.Minute, time.Second)
	nodes := h.managedNodes()
	if len(nodes) != 1 {
		t.Fatalf("want one node to start from, got %d", len(nodes))
	}
	if cpu := nodes[0].Capacity()[corev1.ResourceCPU]; cpu.Value() != 8 {
		t.Fatalf("want a node of 8 CPUs to start from, got %s", cpu.String())
	}
	before := h.HourlyCost()
	h.Scale("big", 0)
	h.Advance(3*time.Minute, time.Second)
	d := h.decisions(false)
	if len(d) == 0 || d[len(d)-1].Decision != "replace" {
		t.Fatalf("want a replace decision, got %+v", d)
	}
	if after := h.HourlyCost(); after >= before {
		t.Errorf("fleet costs $%.4f/h after consolidation, $%.4f/h before", after, before)
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
}

// A replacement is a node like any other once the candidates are gone: Karpenter does not keep it
// from disruption beyond the nomination window, so when its pods leave it goes as an empty node
// would, not after the replacement timeout (10m).
func TestAReplacementIsDisruptableOnceItsCandidatesAreGone(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(0))
	h.Deployment("big", 1, enginetest.Resources("6", ""))
	h.Deployment("small", 1, enginetest.Resources("500m", ""))
	h.Advance(time.Minute, time.Second)
	h.Scale("big", 0)
	h.Advance(3*time.Minute, time.Second)
	if d := h.decisions(false); len(d) == 0 || d[len(d)-1].Decision != "replace" {
		t.Fatalf("want a replace decision, got %+v", d)
	}
	h.Scale("small", 0)
	h.Advance(2*time.Minute, time.Second)
	if n := len(h.managedNodes()); n != 0 {
		t.Errorf("%d nodes 2m after the replacement emptied, want 0: it was kept from disruption", n)
	}
}

func TestMultiNodeConsolidationMergesUnderusedNodes(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(0), budgets(budget("100%")))
	// Three 3-CPU pods, one per node, then a small pod in the room left beside each.
	h.Deployment("big", 3, enginetest.Resources("3", ""), enginetest.OnePerNode())
	h.Advance(time.Minute, time.Second)
	h.Deployment("small", 3, enginetest.Resources("500m", ""))
	h.Advance(time.Minute, time.Second)
	if n := len(h.managedNodes()); n != 3 {
		t.Fatalf("%d nodes, want 3", n)
	}
	// Without the big pods, the three small ones need one small node: several nodes go at once.
	h.Scale("big", 0)
	h.Advance(5*time.Minute, time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	d := h.decisions(false)
	if len(d) == 0 || d[0].Method != disruption.MethodMultiNode || len(d[0].Nodes) < 2 || d[0].PriceAfter >= d[0].PriceBefore {
		t.Fatalf("want a multi-node decision removing several nodes for less, got %+v", d)
	}
	if n := len(h.managedNodes()); n != 1 {
		t.Errorf("%d nodes after consolidation, want 1", n)
	}
}

func TestBudgetZeroDuringItsScheduleBlocksConsolidation(t *testing.T) {
	h := newHarness(t)
	// The fake clock starts on Monday 2026-01-05 at 09:00 UTC, inside a weekday 09:00 + 8h window.
	h.NodePool("default", consolidateAfter(0), budgets(budget("10%"), scheduledBudget("0", "0 9 * * 1-5", 8*time.Hour)))
	h.Deployment("inflate", 2, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	h.Scale("inflate", 0)
	h.Advance(time.Minute, time.Second)
	why := h.whyNot(t)
	if why.Reason != disruption.BlockedBudget || !strings.Contains(why.Message, `"0 9 * * 1-5"`) || why.Until.IsZero() {
		t.Fatalf("want the scheduled budget named as the blocker, with its end: %+v", why)
	}
	if len(h.decisions(false)) != 0 {
		t.Fatal("a decision was taken during a budget of 0")
	}
	h.Advance(9*time.Hour, time.Minute)
	if n := len(h.managedNodes()); n != 0 {
		t.Errorf("%d nodes left once the window closed", n)
	}
}

func TestBlockers(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(h *harness)
		wantReason journal.Reason
		wantText   string
		// wantForbids: a rule forbids the disruption (the console lists it among decisions)
		wantForbids bool
	}{
		{"pdb", func(h *harness) {
			h.Deployment("api", 2, enginetest.Resources("500m", ""), enginetest.WithLabels(map[string]string{"app": "api"}))
			h.PDB("api-pdb", map[string]string{"app": "api"}, "2", "")
		}, disruption.BlockedPDB, "api-pdb", true},
		{"do-not-disrupt", func(h *harness) {
			h.Deployment("db", 1, enginetest.Resources("500m", ""), enginetest.DoNotDisrupt("true"))
		}, disruption.BlockedDoNotDisrupt, "default/db-", true},
		{"policy WhenEmpty", func(h *harness) {
			np := h.NodePool("empty-only", consolidateAfter(0), policy(karpv1.ConsolidationPolicyWhenEmpty), taint("only", "empty"))
			h.Deployment("web", 1, enginetest.Resources("500m", ""), enginetest.WithTolerations(corev1.Toleration{Key: "only", Value: "empty", Operator: corev1.TolerationOpEqual}),
				enginetest.WithNodeSelector(map[string]string{karpv1.NodePoolLabelKey: np.Name}))
		}, disruption.BlockedPolicy, "WhenEmpty", false},
		{"no cheaper type", func(h *harness) {
			h.Deployment("web", 1, enginetest.Resources("1500m", ""))
		}, disruption.BlockedNoCheaperType, "costs less than", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			if tt.name != "policy WhenEmpty" {
				h.NodePool("default", consolidateAfter(0))
			}
			tt.setup(h)
			h.Advance(2*time.Minute, time.Second)
			why := h.whyNot(t)
			if why.Reason != tt.wantReason || !strings.Contains(why.Message, tt.wantText) {
				t.Errorf("blocker %s: %q, want %s mentioning %q", why.Reason, why.Message, tt.wantReason, tt.wantText)
			}
			if why.Forbids != tt.wantForbids {
				t.Errorf("blocker %s: Forbids = %v, want %v", why.Reason, why.Forbids, tt.wantForbids)
			}
			if len(h.decisions(false)) != 0 {
				t.Errorf("decisions despite the blocker: %+v", h.decisions(false))
			}
		})
	}
}

func TestSpotToSpotConsolidation(t *testing.T) {
	for _, enabled := range []bool{false, true} {
		t.Run(map[bool]string{false: "disabled", true: "enabled"}[enabled], func(t *testing.T) {
			var opts []harnessOption
			if enabled {
				opts = append(opts, spotToSpot)
			}
			h := newHarnessWithFamilies(t, []string{"c5", "c5a", "c6a", "c6i", "c7a", "c7i", "m5", "m5a", "m6a", "m6i", "m7a", "m7i"}, opts...)
			h.NodePool("spot", enginetest.Spot(), consolidateAfter(0))
			h.Deployment("big", 1, enginetest.Resources("6", ""))
			h.Deployment("small", 1, enginetest.Resources("500m", ""))
			h.Advance(time.Minute, time.Second)
			h.Scale("big", 0)
			h.Advance(3*time.Minute, time.Second)
			if !enabled {
				if why := h.whyNot(t); why.Reason != disruption.BlockedSpotToSpot {
					t.Errorf("want spot-to-spot named as the blocker, got %+v", why)
				}
				return
			}
			d := h.decisions(false)
			if len(d) == 0 || d[len(d)-1].Decision != "replace" || len(d[len(d)-1].Replacements) != 1 {
				t.Fatalf("want a spot-to-spot replacement, got %+v", d)
			}
			for _, inst := range h.Cloud.Instances() {
				if inst.CapacityType != karpv1.CapacityTypeSpot {
					t.Errorf("instance %s is %s", inst.ID, inst.CapacityType)
				}
			}
		})
	}
}

// relabel gives the default NodePool's template the label team=web, which changes its hash.
func relabel(t *testing.T, h *harness) {
	t.Helper()
	if _, err := h.API.UpdateNodePool(t.Context(), "default", func(np *karpv1.NodePool) error {
		np.Spec.Template.Labels = map[string]string{"team": "web"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestDriftReplacesNodes(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour))
	h.Deployment("web", 2, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	old := h.API.NodeClaims()[0].Name
	// Changing the template's labels changes the NodePool hash: the node drifted.
	relabel(t, h)
	h.Advance(3*time.Minute, time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	claims := h.API.NodeClaims()
	if len(claims) != 1 || claims[0].Name == old || claims[0].Labels["team"] != "web" {
		t.Fatalf("want the drifted nodeclaim replaced by one with the new label, got %+v", claims)
	}
	if d := h.decisions(false); len(d) == 0 || d[0].Method != disruption.MethodDrift {
		t.Errorf("decisions %+v", d)
	}
}

func TestExpiredNodesAreReplaced(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour), expireAfter(time.Hour))
	h.Deployment("web", 2, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	first := h.API.NodeClaims()[0].Name
	h.Advance(time.Hour, 10*time.Second)
	if !h.journaled(journal.KindDisruption, "Expired", first) {
		t.Fatal("expiration not journaled")
	}
	h.Advance(2*time.Minute, time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	for _, nc := range h.API.NodeClaims() {
		if nc.Name == first {
			t.Error("the expired nodeclaim is still there")
		}
	}
}

func TestValidationAbandonsACommandWhenPodsArrive(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(0))
	h.Deployment("inflate", 2, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	h.Scale("inflate", 0)
	// The empty node is chosen, then pods come back before validation 15 s later.
	h.Advance(5*time.Second, time.Second)
	h.Scale("inflate", 2)
	h.Advance(20*time.Second, time.Second)
	if !h.journaled(journal.KindValidation, disruption.BlockedValidationRejected, "") {
		t.Fatal("the command was not abandoned by validation")
	}
	// As Karpenter, the candidate's node and NodeClaim heard of it being chosen, then rejected.
	events := map[string]int{}
	for _, e := range h.API.Events() {
		if strings.HasPrefix(e.Message, "Consolidation candidate: Emptiness") || strings.HasPrefix(e.Message, "Consolidation rejected: Emptiness") {
			events[e.Reason+"/"+e.Kind]++
		}
	}
	for _, want := range []string{"ConsolidationCandidate/Node", "ConsolidationCandidate/NodeClaim", "ConsolidationRejected/Node", "ConsolidationRejected/NodeClaim"} {
		if events[want] == 0 {
			t.Errorf("no %s event (got %v)", want, events)
		}
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
}

// TestValidationSeesWhatChanged: a consolidation decision is checked again 15 s later. With the
// cluster and the prices as they were, it goes ahead as decided, not simulated again; when the
// candidate's own type turns dearer, the move is simulated again and still saves; when every
// instance type but the candidate's turns dearer, the cluster unchanged, the replacement no
// longer saves and validation abandons the command.
func TestValidationSeesWhatChanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		// factor multiplies the price of the candidate's type (ownType) or of every other type.
		factor        float64
		ownType       bool
		wantValidated string // in the decision's journal entry; "" when it is abandoned
	}{
		{"nothing changed", 1, false, "validated: the cluster and the offerings are as when it was decided, so the same move stands"},
		{"the candidate turned dearer", 1.5, true, "validated: the move simulated again on the cluster as it is now"},
		{"the replacements turned dearer", 100, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			// A budget of zero from 09:00 (the clock's start) to 09:03 holds the decision until
			// the cluster has settled (the pod gone, the NodeClaim marked consolidatable), so
			// that nothing in it changes before validation.
			h.NodePool("default", consolidateAfter(0), budgets(budget("1"), scheduledBudget("0", "0 9 * * *", 3*time.Minute)))
			h.Deployment("big", 1, enginetest.Resources("6", ""))
			h.Deployment("small", 1, enginetest.Resources("500m", ""))
			h.Advance(time.Minute, time.Second)
			claims := h.API.NodeClaims()
			if len(claims) != 1 {
				t.Fatalf("%d NodeClaims, want one node for both pods", len(claims))
			}
			candidateType := claims[0].Labels[corev1.LabelInstanceTypeStable]
			h.Scale("big", 0)
			for i := 0; !h.journaled(journal.KindValidation, disruption.ReasonValidating, "replace with"); i++ {
				if i == 180 {
					t.Fatal("no replacement decided in 3 minutes")
				}
				h.Advance(time.Second, time.Second)
			}
			if tc.factor != 1 {
				h.Cloud.Reprice(func(o enginetest.OfferingKey, was float64) float64 {
					if (o.InstanceType == candidateType) == tc.ownType {
						return tc.factor * was
					}
					return was
				})
			}
			h.Advance(time.Minute, time.Second)
			wantDone := tc.wantValidated != ""
			rejected := h.journaled(journal.KindValidation, disruption.BlockedValidationRejected, "")
			launched := h.journaled(journal.KindDisruption, disruption.ReasonReplacementsLaunched, "")
			if rejected == wantDone || launched != wantDone {
				t.Errorf("validation rejected the command: %v, replacements launched: %v; want the command carried out: %v", rejected, launched, wantDone)
			}
			if ds := h.decisions(false); wantDone && (len(ds) != 1 || !strings.Contains(ds[0].Message, tc.wantValidated)) {
				t.Errorf("decisions %v, want one saying %q", ds, tc.wantValidated)
			}
		})
	}
}

func TestDryRunDecidesAndChangesNothing(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(0))
	h.Deployment("inflate", 2, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	h.stop()
	h.start(dryRun)
	h.Scale("inflate", 0)
	h.Deployment("more", 1, enginetest.Resources("1", ""), enginetest.WithNodeSelector(map[string]string{"team": "nowhere"}))
	h.Advance(2*time.Minute, time.Second)
	if d := h.decisions(true); len(d) != 1 {
		t.Errorf("want one dry-run decision journaled once, got %+v", d)
	}
	if n := len(h.managedNodes()); n != 1 || len(h.Cloud.Instances()) != 1 {
		t.Errorf("dry run changed the fleet: %d nodes", n)
	}
}

// TestDryRunExpiryIsOnlyWould: a NodeClaim that expires during a dry run stays, and the journal
// says that it would be deleted, not that it was: no Expired decision (which counts in
// karpenter_nodeclaims_disrupted_total and records events) for a deletion that never happened.
func TestDryRunExpiryIsOnlyWould(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour), expireAfter(time.Hour))
	h.Deployment("web", 2, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	h.stop()
	h.start(dryRun)
	first := h.API.NodeClaims()[0].Name
	h.Advance(time.Hour, 10*time.Second)
	if h.journaled(journal.KindDisruption, "Expired", first) {
		t.Error("a dry run journaled the expiry as a deletion")
	}
	if !h.journaled(journal.KindAction, "DeleteNodeClaim", "would delete nodeclaim "+first+" (expired)") {
		t.Error("a dry run did not say it would delete the expired nodeclaim")
	}
	if ncs := h.API.NodeClaims(); len(ncs) != 1 || ncs[0].Name != first || ncs[0].DeletionTimestamp != nil {
		t.Errorf("a dry run changed the nodeclaims: %v", ncs)
	}
}

// TestOtherHashSchemesAreRehashed: a NodeClaim hashed under another scheme (an older
// nodepilot's, or none) is given the NodePool's hash under Karpenter's scheme, as Karpenter
// does, instead of being taken for drifted; a later template change then drifts it.
func TestOtherHashSchemesAreRehashed(t *testing.T) {
	for _, version := range []string{"nodepilot-v1", ""} {
		t.Run("version "+version, func(t *testing.T) {
			h := newHarness(t)
			h.NodePool("default", consolidateAfter(time.Hour))
			h.Deployment("web", 2, enginetest.Resources("1", ""))
			h.Advance(time.Minute, time.Second)
			old := h.API.NodeClaims()[0].Name
			if _, err := h.API.UpdateNodeClaim(t.Context(), old, func(nc *karpv1.NodeClaim) error {
				nc.Annotations[karpv1.NodePoolHashAnnotationKey] = "12345"
				nc.Annotations[karpv1.NodePoolHashVersionAnnotationKey] = version
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			h.Advance(time.Minute, time.Second)
			np, err := h.API.NodePool("default")
			if err != nil {
				t.Fatal(err)
			}
			claims := h.API.NodeClaims()
			if len(claims) != 1 || claims[0].Name != old {
				t.Fatalf("the re-hashed nodeclaim was replaced: %v", claims)
			}
			if a := claims[0].Annotations; a[karpv1.NodePoolHashAnnotationKey] != karpv1.Hash(np) || a[karpv1.NodePoolHashVersionAnnotationKey] != karpv1.NodePoolHashVersion {
				t.Fatalf("annotations %v, want hash %s version %s", a, karpv1.Hash(np), karpv1.NodePoolHashVersion)
			}
			relabel(t, h)
			h.Advance(3*time.Minute, time.Second)
			if claims := h.API.NodeClaims(); len(claims) != 1 || claims[0].Name == old {
				t.Fatalf("want the drifted nodeclaim replaced, got %v", claims)
			}
		})
	}
}

// TestDoNotDisruptAnnotationEvents: Karpenter's pod events for the annotation: when a duration
// keeps the node until, and, once each, that an invalid value is ignored and that a duration has
// elapsed.
func TestDoNotDisruptAnnotationEvents(t *testing.T) {
	for _, tc := range []struct {
		value, reason, text string
		blocks              bool
	}{
		{"30m", "DoNotDisruptUntil", "The karpenter.sh/do-not-disrupt grace period will elapse at ", true},
		{"soon", "InvalidDoNotDisruptAnnotation", `Invalid karpenter.sh/do-not-disrupt annotation: failed to parse "soon" as a duration`, false},
		{"90s", "DoNotDisruptGracePeriodElapsed", "The karpenter.sh/do-not-disrupt grace period has elapsed, pod is now disruptable", false},
	} {
		t.Run(tc.value, func(t *testing.T) {
			h := newHarness(t)
			h.NodePool("default", consolidateAfter(0))
			h.Deployment("db", 1, enginetest.Resources("500m", ""), enginetest.DoNotDisrupt(tc.value))
			h.Advance(3*time.Minute, time.Second)
			events := 0
			for _, e := range h.API.Events() {
				if e.Reason == tc.reason && e.Kind == "Pod" && strings.HasPrefix(e.Message, tc.text) {
					events++
				}
			}
			if events != 1 {
				t.Errorf("%d %s events on the pod, want 1", events, tc.reason)
			}
			if blocked := h.whyNot(t).Reason == disruption.BlockedDoNotDisrupt; blocked != tc.blocks {
				t.Errorf("blocked by do-not-disrupt: %v, want %v", blocked, tc.blocks)
			}
		})
	}
}

// TestCustomRequirementsLabelTheNodeClaim: a NodeClaim carries a value for each custom label its
// NodePool requires, as Karpenter's do, so neither controller finds it drifted; a pod that asks
// for another allowed value gets a NodeClaim of its own.
func TestCustomRequirementsLabelTheNodeClaim(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour),
		enginetest.Require("team", corev1.NodeSelectorOpIn, "b", "a"),
		enginetest.Require("tier", corev1.NodeSelectorOpExists))
	h.Deployment("web", 2, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	h.Deployment("batch", 1, enginetest.Resources("1", ""), enginetest.WithNodeSelector(map[string]string{"team": "b"}))
	h.Advance(5*time.Minute, time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	teams := map[string]int{}
	for _, nc := range h.API.NodeClaims() {
		teams[nc.Labels["team"]]++
		if nc.Labels["tier"] != "0" {
			t.Errorf("nodeclaim %s: tier label %q, want 0", nc.Name, nc.Labels["tier"])
		}
		if meta.IsStatusConditionTrue(nc.Status.Conditions, karpv1.ConditionTypeDrifted) {
			t.Errorf("nodeclaim %s drifted: %+v", nc.Name, nc.Status.Conditions)
		}
	}
	if teams["a"] != 1 || teams["b"] != 1 || len(teams) != 2 {
		t.Errorf("nodeclaims by team label %v, want one of a and one of b", teams)
	}
	for _, n := range h.managedNodes() {
		if n.Node.Labels["team"] == "" || n.Node.Labels["tier"] != "0" {
			t.Errorf("node %s labels %v lack team and tier", n.Node.Name, n.Node.Labels)
		}
	}
	if d := h.decisions(false); len(d) != 0 {
		t.Errorf("decisions %+v, want none", d)
	}
}
