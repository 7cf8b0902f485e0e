package autoscaler_test

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/aws/awstest"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

const (
	fleetDeployments = 50
	fleetReplicas    = 100
)

// fleet provisions 5,000 pods of 50 Deployments of mixed shapes (250m to 2 CPUs, 1 to 8 GiB per
// CPU) on the embedded catalog's current-generation on-demand c, m and r types of 2 to 8 vCPUs,
// in a world changed by envOpts, with the autoscaler's options changed by opts, and stops the
// autoscaler.
func fleet(tb testing.TB, envOpts []enginetest.Option, opts ...harnessOption) *harness {
	tb.Helper()
	types, err := awstest.CatalogInstanceTypes()
	if err != nil {
		tb.Fatal(err)
	}
	h := newHarnessWith(tb, append([]enginetest.Option{enginetest.WithInstanceTypes(types)}, envOpts...), opts...)
	h.NodePool("default",
		enginetest.Require(awsv1.LabelInstanceCategory, corev1.NodeSelectorOpIn, "c", "m", "r"),
		enginetest.Require(awsv1.LabelInstanceGeneration, corev1.NodeSelectorOpGt, "5"),
		enginetest.Require(awsv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2", "4", "8"))
	rng := rand.New(rand.NewSource(7))
	cpus := []int64{250, 500, 1000, 2000}
	gibPerCPU := []int64{1, 2, 4, 8}
	for d := range fleetDeployments {
		cpu := cpus[rng.Intn(len(cpus))]
		mem := cpu * gibPerCPU[rng.Intn(len(gibPerCPU))] << 30 / 1000
		h.Deployment(fmt.Sprintf("app-%d", d), fleetReplicas, corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(mem, resource.BinarySI)})
	}
	// Karpenter's packing fills NodeClaims on the largest allowed types: the last pods run
	// after about four minutes.
	h.Advance(5*time.Minute, 10*time.Second)
	if err := h.CheckPodsRunning(); err != nil {
		tb.Fatal(err)
	}
	h.stop()
	return h
}

// halve scales every Deployment of the fleet to half, the autoscaler still stopped: every node
// is left part empty, for disruption to consolidate.
func halve(h *harness) {
	for d := range fleetDeployments {
		h.Scale(fmt.Sprintf("app-%d", d), fleetReplicas/2)
	}
	h.Advance(time.Minute, 10*time.Second) // the removed pods' grace period
}

// fleetBounds are issue 2's lower bound, the fractional optimum and what a fresh plan (the
// scheduler buying for every running pod from scratch, packing as asked) costs, for the pods of
// the NodePool "default".
func fleetBounds(tb testing.TB, h *harness, packing scheduling.Packing) (lower, optimum, fresh float64) {
	tb.Helper()
	snap := h.Cluster.Snapshot()
	cat := provisioning.LoadCatalog(tb.Context(), h.Cloud, snap)
	pt := cat.Pools["default"]
	np := scheduling.FromNodePool(pt.NodePool, pt.Types, nil)
	d := cost.DemandOf(snap.Pods)
	plan := scheduling.Solve(&scheduling.Input{NodePools: []scheduling.NodePool{np}, Pods: snap.Pods, Options: scheduling.Options{Packing: packing}})
	if len(plan.Unschedulable) > 0 {
		tb.Fatalf("a fresh plan leaves %d pods unschedulable", len(plan.Unschedulable))
	}
	return cost.LowerBound(d, np), cost.FractionalOptimum(d, np), plan.TotalPricePerHour()
}

func (h *harness) managedCount() int { return len(h.managedNodes()) }

// BenchmarkConsolidationPass measures one disruption pass (a dry run: decide, journal, change
// nothing) over the fleet, full and then halved: candidates, budgets, emptiness, drift,
// multi-node and single-node consolidation, each simulated with the scheduler.
func BenchmarkConsolidationPass(b *testing.B) {
	h := fleet(b, nil)
	b.Run("full", func(b *testing.B) { benchmarkPass(b, h, nil) })
	halve(h)
	b.Run("halved", func(b *testing.B) { benchmarkPass(b, h, nil) })
}

// benchmarkPass times b.N ops of two disruption passes over h's fleet; churn, unless nil,
// changes the cluster before each pass, outside the timer.
func benchmarkPass(b *testing.B, h *harness, churn func()) {
	opts := autoscaler.DefaultOptions().Disruption
	c := disruption.New(h.Cluster, h.executor(true), h.Cloud, h.journal, h.Clock, opts)
	b.ResetTimer()
	for range b.N {
		// One pass decides; the next, after the validation delay, validates and (dry-run) journals.
		for range 2 {
			if churn != nil {
				b.StopTimer()
				churn()
				b.StartTimer()
			}
			if err := c.Reconcile(b.Context()); err != nil {
				b.Fatal(err)
			}
			h.Clock.Step(opts.ValidationDelay)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(h.managedCount()), "nodes")
	b.ReportMetric(float64(len(h.Cluster.Snapshot().Pods)), "pods")
	if ds := h.decisions(true); len(ds) > 0 {
		d := ds[len(ds)-1]
		b.ReportMetric(float64(len(d.Nodes)), "nodes-in-decision")
		b.ReportMetric(d.PriceBefore-d.PriceAfter, "$/h-saved")
	}
}

// TestConsolidationAfterTheWorkloadHalves lets the autoscaler consolidate the halved fleet for an
// hour, or until five minutes pass without a decision, and compares what the fleet costs then
// with a fresh plan for the same pods and with what no fleet can beat, in Karpenter's mode (one
// replacement at most), with split replacements from a 10% saving, and with --packing Cost (the
// fleet bought, and consolidated, packed for cost). Consolidation moves pods only where they fit,
// one command at a time, so it cannot repack the fleet as a fresh plan does, and where it ends
// depends on the fleet it starts from. With Karpenter's packing it must come within 15% of the
// fractional optimum (it ends at 1.14x; Karpenter's order of candidates, cheapest to disrupt
// first, ends at 1.18x: it keeps the memory-optimized nodes the full workload needed); with
// --packing Cost, whose fleet holds fewer memory-optimized nodes to begin with, within 10% (it
// ends at 1.09x). Karpenter's packing buys the halved workload from scratch at 1.12x. No pod it
// moves may be left pending (a move the scheduler undoes repeats every pass), also where the
// harness's kube-scheduler scores nodes as the real one's default profile does, BalancedAllocation
// beside LeastAllocated, while consolidation's check models LeastAllocated alone (it ends at 1.18x
// there).
func TestConsolidationAfterTheWorkloadHalves(t *testing.T) {
	for _, mode := range []struct {
		name        string
		splitSaving float64
		packing     scheduling.Packing
		balanced    bool    // the harness's kube-scheduler adds BalancedAllocation
		within      float64 // of the fractional optimum
	}{
		{"karpenter", 0, scheduling.PackingKarpenter, false, 1.15},
		{"split", 0.1, scheduling.PackingKarpenter, false, 1.15},
		{"packing-cost", 0, scheduling.PackingCost, false, 1.10},
		{"karpenter-balanced-scheduler", 0, scheduling.PackingKarpenter, true, 1.20},
	} {
		t.Run(mode.name, func(t *testing.T) {
			// As --packing sets it: for the provisioner and for consolidation's simulation.
			packing := func(o *autoscaler.Options) {
				o.Provisioning.Scheduling.Packing, o.Disruption.Scheduling.Packing = mode.packing, mode.packing
			}
			var env []enginetest.Option
			if mode.balanced {
				env = append(env, enginetest.WithBalancedAllocation())
			}
			h := fleet(t, env, packing)
			halve(h)
			nodesBefore, costBefore := h.managedCount(), h.HourlyCost()
			halved := h.Clock.Now()
			h.start(packing, func(o *autoscaler.Options) { o.Disruption.SplitSaving = mode.splitSaving })
			for range 12 {
				decided := len(h.decisions(false))
				h.Advance(5*time.Minute, 10*time.Second)
				if len(h.decisions(false)) == decided {
					break
				}
			}
			// An hour may end inside a command: a budget of zero stops new ones, as an operator
			// would, and the one under way finishes (its pods running again) before the fleet is
			// judged.
			if _, err := h.API.UpdateNodePool(t.Context(), "default", func(np *karpv1.NodePool) error {
				np.Spec.Disruption.Budgets = []karpv1.Budget{budget("0")}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			h.Advance(5*time.Minute, 10*time.Second)
			if err := h.CheckConverged(); err != nil {
				t.Fatal(err)
			}
			lower, optimum, fresh := fleetBounds(t, h, mode.packing)
			final := h.HourlyCost()
			splits := 0
			for _, d := range h.decisions(false) {
				if d.Method == disruption.MethodSingleNode && len(d.Replacements) > 1 {
					splits++
				}
			}
			t.Logf("%s: %d nodes at $%.2f/h -> %d nodes at $%.2f/h after %d decisions (%d splits): x%.3f a fresh plan ($%.2f/h), x%.3f the fractional optimum ($%.2f/h), x%.3f issue 2's bound ($%.2f/h)",
				mode.name, nodesBefore, costBefore, h.managedCount(), final, len(h.decisions(false)), splits, final/fresh, fresh, final/optimum, optimum, final/lower, lower)
			// Every pod a move displaces must find room where kube-scheduler puts it: a pod left
			// pending would buy a node and undo the saving, and the next pass would try again.
			for _, e := range h.entries(journal.KindProvisioning) {
				if e.Reason == journal.ReasonNodeClaimsComputed && e.Time.After(halved) {
					t.Errorf("%s: consolidation left pods pending: %s", e.Time.Sub(halved), e.Message)
				}
			}
			if final/optimum > mode.within {
				t.Errorf("the consolidated fleet costs %.3f x the fractional optimum, want at most %.2f", final/optimum, mode.within)
			}
		})
	}
}
