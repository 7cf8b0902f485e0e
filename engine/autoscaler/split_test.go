package autoscaler_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodepilot/nodepilot/aws/awstest"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// dearLargeTypes are m5.large, m5.xlarge and an m5.2xlarge priced at $0.60/h instead of $0.384,
// as a spot market sometimes prices a large type: six pods of one CPU launched as Karpenter packs
// (asKarpenter) run on an m5.2xlarge (the only type that holds them all), and two m5.xlarge at
// $0.384/h would hold them for 36% less.
func dearLargeTypes() []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, it := range enginetest.DefaultInstanceTypes() {
		switch it.Name {
		case "m5.2xlarge":
			for i := range it.Offerings {
				it.Offerings[i].Price = 0.60
			}
			fallthrough
		case "m5.large", "m5.xlarge":
			out = append(out, it)
		}
	}
	return out
}

// asKarpenter launches as Karpenter packs, with no price cliff: as a node launched before a
// hand-over from Karpenter, or before its type's price rose, was.
func asKarpenter(o *autoscaler.Options) { o.Provisioning.Scheduling.PriceCliff = 0 }

// dearerLargeSizes are the catalog's c, m and r types of generations 5 and 6 on Intel, large to
// 4xlarge (enough for spot-to-spot's 15 cheaper types), with every size above large 50% dearer
// per CPU, so that a split replacement saves.
func dearerLargeSizes(tb testing.TB) []*cloudprovider.InstanceType {
	tb.Helper()
	var names []string
	for _, family := range []string{"c5", "m5", "r5", "c6i", "m6i", "r6i"} {
		for _, size := range []string{"large", "xlarge", "2xlarge", "4xlarge"} {
			names = append(names, family+"."+size)
		}
	}
	types, err := awstest.CatalogInstanceTypes(names...)
	if err != nil {
		tb.Fatal(err)
	}
	for _, it := range types {
		if !strings.HasSuffix(it.Name, ".large") {
			for i := range it.Offerings {
				it.Offerings[i].Price *= 1.5
			}
		}
	}
	return types
}

// sixPodsOnDearLargeTypes runs six pods of one CPU over dearLargeTypes for d, and returns the
// harness and its nodes' instance types, sorted.
func sixPodsOnDearLargeTypes(t *testing.T, d time.Duration, opts ...harnessOption) (*harness, []string) {
	t.Helper()
	h := newHarnessWith(t, []enginetest.Option{enginetest.WithInstanceTypes(dearLargeTypes())}, opts...)
	h.NodePool("default")
	h.Deployment("web", 6, enginetest.Resources("1", "1Gi"))
	h.Advance(d, 10*time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, n := range h.managedNodes() {
		types = append(types, n.Labels()["node.kubernetes.io/instance-type"])
	}
	slices.Sort(types)
	return h, types
}

// TestPriceCliffAtLaunch: by default the six pods launch on two m5.xlarge, not on the dear
// m5.2xlarge Karpenter's packing grows into, and the journal says where the first NodeClaim stopped.
func TestPriceCliffAtLaunch(t *testing.T) {
	h, types := sixPodsOnDearLargeTypes(t, 2*time.Minute)
	if want := []string{"m5.xlarge", "m5.xlarge"}; !slices.Equal(types, want) {
		t.Fatalf("nodes %v, want %v", types, want)
	}
	if want := "it stopped taking pods short of m5.2xlarge, 1.55x the price for pods like its own (--price-cliff 1.5)"; !h.journaled(journal.KindProvisioning, journal.ReasonNodeClaimCreated, want) {
		t.Errorf("no NodeClaimCreated entry says %q", want)
	}
}

// TestSplitReplacement: a node that one replacement cannot make cheaper is split into two
// cheaper nodes when the option allows a saving that large, and kept otherwise, with why.
func TestSplitReplacement(t *testing.T) {
	for _, tc := range []struct {
		name      string
		saving    float64
		wantTypes []string
		wantWhy   string
	}{
		{name: "off, as Karpenter", saving: 0, wantTypes: []string{"m5.2xlarge"}, wantWhy: "no instance type that could hold its pods costs less"},
		{name: "20%", saving: 0.2, wantTypes: []string{"m5.xlarge", "m5.xlarge"}},
		{name: "50%, more than a split saves", saving: 0.5, wantTypes: []string{"m5.2xlarge"},
			wantWhy: "split into 2 nodes it would cost $0.3840/h, saving 36%, less than the 50% a split needs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// the commands give consolidation the provisioner's price cliff, which it must ignore
			h, types := sixPodsOnDearLargeTypes(t, 10*time.Minute, asKarpenter, func(o *autoscaler.Options) {
				o.Disruption.SplitSaving, o.Disruption.Scheduling.PriceCliff = tc.saving, scheduling.DefaultPriceCliff
			})
			if !slices.Equal(types, tc.wantTypes) {
				t.Fatalf("nodes %v, want %v", types, tc.wantTypes)
			}
			if tc.wantWhy != "" {
				if why := h.whyNot(t); !strings.Contains(why.Message, tc.wantWhy) {
					t.Errorf("why not: %q, want %q", why.Message, tc.wantWhy)
				}
				return
			}
			ds := h.decisions(false)
			if len(ds) != 1 || ds[0].Method != disruption.MethodSingleNode || !strings.Contains(ds[0].Message, "split into 2: m5.xlarge, m5.xlarge") ||
				ds[0].PriceBefore != 0.60 || ds[0].PriceAfter != 0.384 {
				t.Errorf("decisions %+v, want one split of $0.60/h into $0.384/h", ds)
			}
		})
	}
}

// TestExplainSaysWhenASplitWouldApply: with split replacements off, the simulation the console's
// explain runs says what one would save.
func TestExplainSaysWhenASplitWouldApply(t *testing.T) {
	h := newHarnessWith(t, []enginetest.Option{enginetest.WithInstanceTypes(dearLargeTypes())}, asKarpenter)
	h.NodePool("default")
	h.Deployment("web", 6, enginetest.Resources("1", "1Gi"))
	h.Advance(5*time.Minute, 10*time.Second)
	nodes := h.managedNodes()
	if len(nodes) != 1 {
		t.Fatalf("%d nodes, want one", len(nodes))
	}
	sim, err := disruption.Simulate(t.Context(), h.Cloud, h.Cluster.Snapshot(), nodes[0].Name(), autoscaler.DefaultOptions().Disruption, h.Clock.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "a split replacement would apply: 2 nodes (m5.xlarge, m5.xlarge) at $0.3840/h save 36% (off: --split-saving enables it)"
	if sim.Reason != disruption.BlockedNoCheaperType || !strings.Contains(sim.Message, want) {
		t.Errorf("simulation %q: %q, want %s and %q", sim.Reason, sim.Message, disruption.BlockedNoCheaperType, want)
	}
}
