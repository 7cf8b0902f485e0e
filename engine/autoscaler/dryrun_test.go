package autoscaler_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// decisionScenario is a world built live, then a change after which nodepilot must decide.
type decisionScenario struct {
	name  string
	opts  []harnessOption
	setup func(h *harness) // run live, the same in both worlds
	act   func(h *harness) // the change the decision answers, made after a restart in the mode
	// within is how long the story runs after the change, in steps of step.
	within, step time.Duration
	// decides is what the dry run must have decided, at least (each a part of one decision).
	decides []string
	// heldBack is a decision the live run takes and the dry run cannot, as it follows from a
	// write the dry run holds back.
	heldBack string
}

// story builds the scenario's world, restarts the autoscaler live or dry, makes the change and
// runs for the scenario's time: it returns what nodepilot did (or, dry, would have done) in
// order, each action and decision once, with what the world held before and after the change.
func story(t *testing.T, sc decisionScenario, dry bool) (decided []string, before, after string) {
	h := newHarness(t, sc.opts...)
	sc.setup(h)
	h.stop()
	opts := sc.opts
	if dry {
		opts = append(slices.Clone(opts), dryRun)
	}
	h.start(opts...)
	var from uint64
	if es := h.journal.Entries(0); len(es) > 0 {
		from = es[len(es)-1].Seq
	}
	sc.act(h)
	before = fingerprint(h)
	h.Advance(sc.within, sc.step)
	return decisionsSince(h.journal, from), before, fingerprint(h)
}

// decisionsSince lists the executor's actions and the disruption decisions journaled after seq,
// in order, each once (a dry run says again every ten minutes what it still would do), the mood
// taken off ("would delete x" and "delete x" are one decision).
func decisionsSince(j *journal.Journal, seq uint64) []string {
	var out []string
	for _, e := range j.Entries(seq) {
		var d string
		switch {
		case e.Kind == journal.KindAction:
			d = string(e.Reason) + " " + strings.TrimPrefix(e.Message, "would ")
		case e.Decision != "":
			d = fmt.Sprintf("Decision %s %s %s %v $%.4f/h -> $%.4f/h", e.Method, e.Reason, e.Decision, e.Nodes, e.PriceBefore, e.PriceAfter)
		default:
			continue
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// subsequence reports whether every element of sub appears in all, in order; when not, the first
// that does not.
func subsequence(sub, all []string) (string, bool) {
	i := 0
	for _, s := range sub {
		for i < len(all) && all[i] != s {
			i++
		}
		if i == len(all) {
			return s, false
		}
		i++
	}
	return "", true
}

// fingerprint is what only nodepilot writes: NodeClaims (deletion, conditions), nodes' taints
// and cordons, instances and their states.
func fingerprint(h *harness) string {
	var b strings.Builder
	for _, nc := range h.API.NodeClaims() {
		fmt.Fprintf(&b, "nodeclaim %s deleting=%v", nc.Name, nc.DeletionTimestamp != nil)
		for _, c := range nc.Status.Conditions {
			fmt.Fprintf(&b, " %s=%s", c.Type, c.Status)
		}
		b.WriteString("\n")
	}
	for _, n := range h.API.Nodes() {
		fmt.Fprintf(&b, "node %s unschedulable=%v taints=%v\n", n.Name, n.Spec.Unschedulable, n.Spec.Taints)
	}
	for _, i := range h.Cloud.Instances() {
		fmt.Fprintf(&b, "instance %s %s\n", i.ID, i.State)
	}
	return b.String()
}

// TestSameDecisionsLiveAndDry: from the same world, a dry run decides exactly what a live run
// does (the same loop, the same actions on the same objects), and a dry run changes nothing.
func TestSameDecisionsLiveAndDry(t *testing.T) {
	deployment := func(name string, n int, cpu string, opts ...enginetest.PodOption) func(h *harness) {
		return func(h *harness) { h.Deployment(name, n, enginetest.Resources(cpu, ""), opts...) }
	}
	for _, sc := range []decisionScenario{
		{name: "scale-out", setup: func(h *harness) { h.NodePool("default") },
			act: deployment("inflate", 5, "1"), within: time.Minute, step: time.Second, decides: []string{"CreateNodeClaim"}},
		{name: "an empty node", setup: func(h *harness) {
			h.NodePool("default", consolidateAfter(0))
			h.Deployment("inflate", 2, enginetest.Resources("1", ""))
			h.Advance(time.Minute, time.Second)
		}, act: func(h *harness) { h.Scale("inflate", 0) }, within: 5 * time.Minute, step: time.Second, decides: []string{"Decision Emptiness"}},
		{name: "a node to replace by a cheaper one", setup: func(h *harness) {
			h.NodePool("default", consolidateAfter(0))
			h.Deployment("big", 1, enginetest.Resources("6", ""))
			h.Deployment("small", 1, enginetest.Resources("500m", ""))
			h.Advance(time.Minute, time.Second)
		}, act: func(h *harness) { h.Scale("big", 0) }, within: 5 * time.Minute, step: time.Second, decides: []string{"Decision SingleNodeConsolidation Underutilized replace"}},
		{name: "underused nodes to merge", setup: func(h *harness) {
			h.NodePool("default", consolidateAfter(0), budgets(budget("100%")))
			h.Deployment("big", 3, enginetest.Resources("3", ""), enginetest.OnePerNode())
			h.Advance(time.Minute, time.Second)
			h.Deployment("small", 3, enginetest.Resources("500m", ""))
			h.Advance(time.Minute, time.Second)
		}, act: func(h *harness) { h.Scale("big", 0) }, within: 5 * time.Minute, step: time.Second, decides: []string{
			"taint karpenter.sh/disrupted:NoSchedule on node i-1.", "taint karpenter.sh/disrupted:NoSchedule on node i-2.",
			"taint karpenter.sh/disrupted:NoSchedule on node i-3.", "Decision MultiNodeConsolidation"}},
		{name: "drift", setup: func(h *harness) {
			h.NodePool("default", consolidateAfter(time.Hour))
			h.Deployment("web", 2, enginetest.Resources("1", ""))
			h.Advance(time.Minute, time.Second)
		}, act: func(h *harness) {
			if _, err := h.API.UpdateNodePool(h.T.Context(), "default", func(np *karpv1.NodePool) error {
				np.Spec.Template.Labels = map[string]string{"team": "web"}
				return nil
			}); err != nil {
				h.T.Fatal(err)
			}
		}, within: 5 * time.Minute, step: time.Second, decides: []string{"UpdateNodeClaimStatus update Drifted"},
			// Lifecycle writes the Drifted condition and disruption decides on it: a dry run holds
			// the write back, so it says it would mark the node drifted but never replaces it.
			heldBack: "Decision Drift"},
		{name: "expiry", setup: func(h *harness) {
			h.NodePool("default", consolidateAfter(time.Hour), expireAfter(time.Hour))
			h.Deployment("web", 2, enginetest.Resources("1", ""))
			h.Advance(time.Minute, time.Second)
		}, act: func(*harness) {}, within: 2 * time.Hour, step: 10 * time.Second, decides: []string{"(expired)"}},
		{name: "a spot interruption", setup: func(h *harness) {
			h.NodePool("spot", enginetest.Spot(), consolidateAfter(time.Hour))
			h.Deployment("web", 2, enginetest.Resources("1", ""))
			h.Advance(time.Minute, time.Second)
		}, act: func(h *harness) {
			if err := h.Cloud.Interrupt(h.Cloud.Instances()[0].ProviderID, cloudprovider.SpotInterruption); err != nil {
				h.T.Fatal(err)
			}
		}, within: time.Minute, step: time.Second, decides: []string{"(SpotInterruption for i-1)"}},
		{name: "a budget of zero until its window closes", setup: func(h *harness) {
			h.NodePool("default", consolidateAfter(0), budgets(budget("10%"), scheduledBudget("0", "0 9 * * 1-5", 8*time.Hour)))
			h.Deployment("inflate", 2, enginetest.Resources("1", ""))
			h.Advance(time.Minute, time.Second)
		}, act: func(h *harness) { h.Scale("inflate", 0) }, within: 10 * time.Hour, step: time.Minute, decides: []string{"Decision Emptiness"}},
		{name: "a drain held by a PDB", setup: func(h *harness) {
			h.NodePool("default", consolidateAfter(time.Hour))
			h.Deployment("api", 3, enginetest.Resources("500m", ""), enginetest.WithLabels(map[string]string{"app": "api"}))
			h.PDB("api-pdb", map[string]string{"app": "api"}, "2", "")
			h.Advance(time.Minute, time.Second)
		}, act: func(h *harness) {
			if err := h.API.DeleteNodeClaim(h.T.Context(), h.API.NodeClaims()[0].Name); err != nil {
				h.T.Fatal(err)
			}
		}, within: time.Minute, step: time.Second, decides: []string{"UpdateNode taint karpenter.sh/disrupted:NoSchedule on node i-1."}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			live, _, _ := story(t, sc, false)
			dry, before, after := story(t, sc, true)
			for _, want := range sc.decides {
				if !slices.ContainsFunc(dry, func(d string) bool { return strings.Contains(d, want) }) {
					t.Errorf("the dry run never decided %q: %q", want, dry)
				}
			}
			if sc.heldBack != "" {
				has := func(ds []string) bool {
					return slices.ContainsFunc(ds, func(d string) bool { return strings.Contains(d, sc.heldBack) })
				}
				if !has(live) || has(dry) {
					t.Errorf("%q: live %v, dry %v; want live only", sc.heldBack, has(live), has(dry))
				}
			}
			// The live run goes on to do what follows from its writes (the deletion after the
			// taint, the launch after the NodeClaim); what the dry run decides, it decides too,
			// in the same order.
			if missing, ok := subsequence(dry, live); !ok {
				t.Errorf("the dry run decided %q, which the live run did not (at that point)\ndry:  %q\nlive: %q", missing, dry, live)
			}
			if before != after {
				t.Errorf("the dry run changed the world:\nbefore %s\nafter  %s", before, after)
			}
			t.Logf("dry run decided %d: %q", len(dry), dry)
		})
	}
}

// TestSameDecisionTellsApart: the comparison sees a different decision: the same scale-out with
// a different pod size launches another instance type.
func TestSameDecisionTellsApart(t *testing.T) {
	base := decisionScenario{setup: func(h *harness) { h.NodePool("default") }, within: time.Minute, step: time.Second}
	small, large := base, base
	small.act = func(h *harness) { h.Deployment("inflate", 1, enginetest.Resources("1", "")) }
	large.act = func(h *harness) { h.Deployment("inflate", 1, enginetest.Resources("7", "")) }
	a, _, _ := story(t, small, true)
	b, _, _ := story(t, large, true)
	if a == nil || slices.Equal(a, b) {
		t.Errorf("a 1-CPU and a 7-CPU scale-out decided alike: %q and %q", a, b)
	}
}
