package autoscaler_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// decisionChecker checks every disruption decision the moment it is journaled: within its
// NodePool's budget, touching no node with an active do-not-disrupt pod, and, for consolidation,
// lowering the price.
type decisionChecker struct {
	t       *testing.T
	cluster *state.Cluster
	// seen counts the decisions, splits the split replacements among them.
	seen, splits int
}

func (c *decisionChecker) Observe(e journal.Entry) {
	if e.Kind != journal.KindDisruption || e.Decision == "" || e.DryRun {
		return
	}
	c.seen++
	if e.Method == disruption.MethodSingleNode && len(e.Replacements) > 1 {
		c.splits++
	}
	snap := c.cluster.Snapshot()
	np := snap.NodePool(e.NodePool)
	if np == nil {
		c.t.Errorf("decision for unknown nodepool %q", e.NodePool)
		return
	}
	// The candidates are marked already: what disrupts now must fit in the budget, both counted
	// here as Karpenter counts them, not by the engine's own AllowanceFor.
	if limit, ok := budgetLimit(c.t, np, karpv1.DisruptionReason(e.Reason), snap); ok {
		if disrupting := disruptingNodes(np.Name, snap); disrupting > limit {
			c.t.Errorf("%s: %d nodes disrupting in nodepool %s, more than its budget's %d", e.Message, disrupting, np.Name, limit)
		}
	}
	for _, name := range e.Nodes {
		n := snap.NodeByName(name)
		if n == nil {
			continue
		}
		for _, p := range n.Pods {
			if pods.BlocksDisruption(p, snap.Time) {
				c.t.Errorf("%s: node %s runs %s/%s, which is annotated do-not-disrupt", e.Message, name, p.Namespace, p.Name)
			}
		}
	}
	if e.Method != disruption.MethodEmptiness && e.Method != disruption.MethodDrift && e.PriceAfter >= e.PriceBefore {
		c.t.Errorf("%s: consolidation from $%.4f/h to $%.4f/h does not save", e.Message, e.PriceBefore, e.PriceAfter)
	}
}

// budgetNodes are a NodePool's nodes that count for its budgets, as Karpenter's
// BuildDisruptionBudgetMapping counts them: managed and initialized, the instance not terminating.
func budgetNodes(pool string, snap *state.Snapshot) []*state.Node {
	var out []*state.Node
	for _, n := range snap.Nodes {
		if n.NodeClaim != nil && n.NodePool() == pool &&
			meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized) &&
			!meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeInstanceTerminating) {
			out = append(out, n)
		}
	}
	return out
}

// disruptingNodes counts those marked for deletion or whose Node is not Ready.
func disruptingNodes(pool string, snap *state.Snapshot) int {
	count := 0
	for _, n := range budgetNodes(pool, snap) {
		ready := false
		if n.Node != nil {
			for _, c := range n.Node.Status.Conditions {
				ready = ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
			}
		}
		if n.MarkedForDeletion || !ready {
			count++
		}
	}
	return count
}

// budgetLimit is the smallest node count among the NodePool's budgets for a reason (the tests'
// budgets have no schedule), percentages scaled and rounded up by apimachinery as Karpenter
// does; false when no budget applies.
func budgetLimit(t *testing.T, np *karpv1.NodePool, reason karpv1.DisruptionReason, snap *state.Snapshot) (int, bool) {
	t.Helper()
	total := len(budgetNodes(np.Name, snap))
	limit, found := 0, false
	for _, b := range np.Spec.Disruption.Budgets {
		if len(b.Reasons) > 0 && !slices.Contains(b.Reasons, reason) {
			continue
		}
		if b.Schedule != nil {
			t.Fatalf("nodepool %s: the invariant check does not evaluate scheduled budgets", np.Name)
		}
		n, err := intstr.GetScaledValueFromIntOrPercent(ptr.To(intstr.Parse(b.Nodes)), total, true)
		if err != nil {
			t.Fatalf("nodepool %s: budget nodes %q: %v", np.Name, b.Nodes, err)
		}
		if !found || n < limit {
			limit, found = n, true
		}
	}
	return limit, found
}

// TestRandomizedRunKeepsInvariants runs a random workload for 90 minutes, in Karpenter's mode,
// and with split replacements allowed from a 10% saving on catalog types whose sizes above large
// are priced half as dear again per CPU (so that splits happen); six runs hear every change at
// once, two hear it two rounds late (the harness's default, as informers).
func TestRandomizedRunKeepsInvariants(t *testing.T) {
	split := func(o *autoscaler.Options) { o.Disruption.SplitSaving = 0.1 }
	splits := 0
	for _, run := range []struct {
		seed     int64
		split    bool
		watchLag int
	}{{1, false, 0}, {2, false, 0}, {3, false, 0}, {1, true, 0}, {2, true, 0}, {3, true, 0}, {4, false, 2}, {4, true, 2}} {
		seed := run.seed
		opts := []harnessOption{spotToSpot}
		t.Run(fmt.Sprintf("seed %d, split %t, watch lag %d", seed, run.split, run.watchLag), func(t *testing.T) {
			var envOpts []enginetest.Option
			if run.split {
				opts = append(opts, split)
				envOpts = append(envOpts, enginetest.WithInstanceTypes(dearerLargeSizes(t)))
			}
			h := newHarnessWith(t, envOpts, opts...)
			h.API.SetWatchLag(run.watchLag)
			checker := &decisionChecker{t: t, cluster: h.Cluster}
			h.journal = journal.New(100000, checker, journal.EventSink{Recorder: h.API})
			h.stop()
			h.start(opts...)
			forced := 0
			h.API.OnCall(func(op string) {
				if op == enginetest.OpDeletePod {
					forced++
				}
			})

			h.NodePool("od", consolidateAfter(30*time.Second), budgets(budget("20%")), enginetest.Limit(corev1.ResourceCPU, "64"))
			h.NodePool("spot", enginetest.Spot(), consolidateAfter(30*time.Second), budgets(budget("2")), taint("pool", "spot"))
			toSpot := []enginetest.PodOption{
				enginetest.WithTolerations(corev1.Toleration{Key: "pool", Value: "spot", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule}),
				enginetest.WithNodeSelector(map[string]string{karpv1.NodePoolLabelKey: "spot"}),
			}
			h.Deployment("web", 3, enginetest.Resources("500m", "512Mi"), enginetest.WithLabels(map[string]string{"app": "web"}))
			h.PDB("web", map[string]string{"app": "web"}, "", "1")
			h.Deployment("db", 1, enginetest.Resources("1", "2Gi"), enginetest.DoNotDisrupt("true"))
			h.Deployment("batch", 2, enginetest.Resources("1", "1Gi"), toSpot...)
			h.Deployment("workers", 2, enginetest.Resources("250m", "256Mi"), enginetest.OnePerNode())

			rng := rand.New(rand.NewSource(seed))
			deployments := []struct {
				name string
				most int
			}{{"web", 8}, {"batch", 6}, {"workers", 5}}
			for minute := range 90 {
				switch r := rng.Intn(10); {
				case r < 5:
					for _, d := range deployments {
						if rng.Intn(2) == 0 {
							h.Scale(d.name, rng.Intn(d.most+1))
						}
					}
				case r < 7:
					var spot []enginetest.Instance
					for _, i := range h.Cloud.Instances() {
						if i.State == enginetest.InstanceRunning && i.CapacityType == karpv1.CapacityTypeSpot {
							spot = append(spot, i)
						}
					}
					if len(spot) > 0 {
						h.Cloud.Interrupt(spot[rng.Intn(len(spot))].ProviderID, cloudprovider.SpotInterruption)
					}
				case r < 8:
					h.Cloud.InjectInsufficientCapacity(enginetest.OfferingKey{CapacityType: karpv1.CapacityTypeSpot, Zone: enginetest.Zones()[rng.Intn(len(enginetest.Zones()))]})
				default:
					h.Cloud.ClearInsufficientCapacity()
				}
				for range 30 {
					h.Step(2 * time.Second)
					if err := h.CheckInvariants(); err != nil {
						t.Fatalf("minute %d: %v", minute, err)
					}
				}
			}
			h.Cloud.ClearInsufficientCapacity()
			h.Advance(10*time.Minute, 2*time.Second)
			for _, check := range []func() error{h.CheckNoOrphans, h.CheckNoDisruptedTaints, h.CheckOneInstancePerNodeClaim, h.CheckNodeClaimsHaveInstances} {
				if err := check(); err != nil {
					t.Error(err)
				}
			}
			if forced > 0 {
				t.Errorf("%d pods were deleted rather than evicted, with no termination grace period to force it", forced)
			}
			if checker.seen == 0 {
				t.Error("no disruption decision in 90 minutes: the run tests nothing")
			}
			splits += checker.splits
			t.Logf("%d decisions (%d splits), %d launches, fleet $%.4f/h at the end", checker.seen, checker.splits, len(h.Cloud.Launches()), h.HourlyCost())
		})
	}
	if splits == 0 {
		t.Error("no split replacement in the split runs: they test nothing more than the others")
	}
}

// crashStory scales out, consolidates and replaces, recording every API and cloud call.
func crashStory(h *harness) {
	h.NodePool("default", consolidateAfter(0), budgets(budget("100%")))
	h.Deployment("big", 1, enginetest.Resources("6", ""))
	h.Deployment("small", 2, enginetest.Resources("500m", ""))
	h.Advance(time.Minute, time.Second)
	h.Scale("big", 0)
	h.Advance(2*time.Minute, time.Second)
}

func TestCrashAtEveryStepConverges(t *testing.T) {
	// A first run lists the calls the engine makes.
	var calls []string
	probe := newHarness(t)
	probe.API.OnCall(func(op string) { calls = append(calls, "api:"+op) })
	probe.Cloud.OnCall(func(op string) { calls = append(calls, "cloud:"+op) })
	crashStory(probe)
	if err := probe.CheckConverged(); err != nil {
		t.Fatalf("the story itself does not converge: %v", err)
	}
	if len(calls) < 10 {
		t.Fatalf("only %d calls recorded", len(calls))
	}
	for i, call := range calls {
		if strings.HasPrefix(call, "api:Event") || strings.HasSuffix(call, ":InstanceTypes") || strings.HasSuffix(call, ":List") {
			continue // reads and events change nothing a crash could leave half done
		}
		t.Run(fmt.Sprintf("%03d %s", i, call), func(t *testing.T) {
			h := newHarnessWithKubelet(t, enginetest.DefaultKubeletOptions())
			h.stop()
			crashed, crash := context.WithCancel(t.Context())
			n := 0
			count := func(prefix string) func(string) {
				return func(op string) {
					if crashed.Err() == nil && prefix+op == calls[i] {
						if n == countBefore(calls, i) {
							crash()
						}
						n++
					}
				}
			}
			h.API.OnCall(count("api:"))
			h.Cloud.OnCall(count("cloud:"))
			first := h.pass(h.autoscaler)
			stop := h.AddReconciler(func(context.Context) {
				if crashed.Err() == nil {
					first(crashed)
				}
			})
			crashStory(h)
			stop()
			h.API.OnCall(nil)
			h.Cloud.OnCall(nil)
			if crashed.Err() == nil {
				t.Fatal("the crash point was not reached: the story no longer makes this call (the harness is deterministic), so the crash test lost its coverage")
			}
			h.start()
			h.Advance(5*time.Minute, time.Second)
			if err := h.CheckConverged(); err != nil {
				t.Fatal(err)
			}
			if err := h.CheckOneInstancePerNodeClaim(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// countBefore counts how many times calls[i] occurred before index i.
func countBefore(calls []string, i int) int {
	n := 0
	for _, c := range calls[:i] {
		if c == calls[i] {
			n++
		}
	}
	return n
}
