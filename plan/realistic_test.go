package plan

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/kube/manifest"
)

// realisticInput is 10,000 pods from 50 Deployments of varied shapes over the seed NodePools:
// each Deployment targets one NodePool (node selector, plus the toleration its taint needs),
// with CPU from 250m to 2 and 1 to 8 GiB per CPU; one in four spreads across zones.
func realisticInput(t testing.TB) *scheduling.Input {
	t.Helper()
	set, err := manifest.Load("../testdata/manifests/seeds")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	set.Pods = nil
	rng := rand.New(rand.NewSource(42))
	pools := []string{"spot-workloads", "on-demand-general", "spot-batch", "default", "mixed-capacity"}
	tolerations := map[string]string{"on-demand-general": "general", "spot-batch": "batch"}
	cpus := []string{"250m", "500m", "1", "2"}
	gibPerCPU := []float64{1, 2, 4, 8}
	for d := range 50 {
		pool := pools[d%len(pools)]
		cpu := resource.MustParse(cpus[rng.Intn(len(cpus))])
		switch { // keep within the seed NodePools' limits
		case d%10 == 0: // general-purpose: 1,000 CPUs and 2,000 GiB
			pool, cpu = "general-purpose", resource.MustParse(cpus[rng.Intn(2)])
		case pool == "on-demand-general": // 2,000 CPUs
			cpu = resource.MustParse(cpus[rng.Intn(3)])
		}
		ratio := gibPerCPU[rng.Intn(len(gibPerCPU))]
		if pool == "general-purpose" { // and at most 2,000 GiB
			ratio = gibPerCPU[rng.Intn(2)]
		}
		mem := resource.NewQuantity(int64(float64(cpu.MilliValue())*ratio/1000*(1<<30)), resource.BinarySI)
		labels := map[string]string{"app": fmt.Sprintf("app-%d", d)}
		spec := corev1.PodSpec{
			NodeSelector: map[string]string{karpv1.NodePoolLabelKey: pool},
			Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: *mem}}}},
		}
		if v, ok := tolerations[pool]; ok {
			spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: v, Effect: corev1.TaintEffectNoSchedule}}
		}
		// One in four spreads across zones, except on mixed-capacity: a NodePool that allows
		// every type reaches zones where only a 3 TB or an FPGA machine is offered, and a spread
		// must put a node there. That is the NodePool's configuration (the explainer names the
		// zone), not packing, and would swamp what this measures.
		if d%4 == 1 && pool != "mixed-capacity" {
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: labels}}}
		}
		replicas := int32(200)
		dep := &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: labels["app"], Namespace: "default"},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
		}
		doc, err := yaml.Marshal(dep)
		if err != nil {
			t.Fatal(err)
		}
		pods, err := manifest.Decode("realistic.yaml", doc)
		if err != nil {
			t.Fatal(err)
		}
		set.Pods = append(set.Pods, pods.Pods...)
	}
	in := Build(set, cat, scheduling.Options{}, nil).Input
	return in
}

// bounds are issue 2's lower bound (the larger of CPU and memory, each summed over the pods at
// the cheapest unit price their NodePool allows) and the fractional optimum, per NodePool
// summed; each pod counts against the NodePool its node selector names.
func bounds(in *scheduling.Input) (lower, optimum float64) {
	var cpu, mem float64
	for _, np := range in.NodePools {
		var aimed []*corev1.Pod
		for _, p := range in.Pods {
			if p.Spec.NodeSelector[karpv1.NodePoolLabelKey] == np.Name {
				aimed = append(aimed, p)
			}
		}
		if len(aimed) == 0 {
			continue
		}
		d := cost.DemandOf(aimed)
		perMilliCPU, perByte := cost.UnitPrices(np)
		cpu += d.CPU * perMilliCPU
		mem += d.Memory * perByte
		optimum += cost.FractionalOptimum(d, np)
	}
	return math.Max(cpu, mem), optimum
}

// TestRealisticPlanIsCloseToTheOptimum plans the realistic 10,000 pods with each packing. Cost
// packing must come within 1.15x the fractional optimum. Karpenter's packing fills each NodeClaim
// while any of its types holds its pods and ends on large types that are poor value for them: it
// is held to 2.5x, its measured 2.2x with room. Stopped at the default price cliff, as nodepilot
// provisions, it is held to 1.45x, its measured 1.36x with room.
func TestRealisticPlanIsCloseToTheOptimum(t *testing.T) {
	for _, tc := range []struct {
		packing scheduling.Packing
		cliff   float64
		within  float64
	}{
		{scheduling.PackingCost, 0, 1.15},
		{scheduling.PackingKarpenter, 0, 2.5},
		{scheduling.PackingKarpenter, scheduling.DefaultPriceCliff, 1.45},
	} {
		t.Run(fmt.Sprintf("%s, price cliff %g", tc.packing, tc.cliff), func(t *testing.T) {
			in := realisticInput(t)
			in.Options.Packing, in.Options.PriceCliff = tc.packing, tc.cliff
			r := scheduling.Solve(in)
			if len(r.Unschedulable) != 0 {
				t.Fatalf("%d pods unschedulable, first: %+v", len(r.Unschedulable), r.Unschedulable[0].Reasons)
			}
			bound, optimum := bounds(in)
			price := r.TotalPricePerHour()
			t.Logf("%d pods on %d nodes: $%.2f/h; fractional optimum $%.2f/h (x%.3f); issue 2's bound $%.2f/h (x%.3f)",
				len(in.Pods), len(r.NewNodeClaims), price, optimum, price/optimum, bound, price/bound)
			if optimum < bound {
				t.Fatalf("the fractional optimum $%.2f is below the bound $%.2f: one of them is computed wrong", optimum, bound)
			}
			if price/optimum > tc.within {
				t.Errorf("plan costs %.3f x the fractional optimum, want at most %.2f", price/optimum, tc.within)
			}
		})
	}
}

func BenchmarkRealistic(b *testing.B) {
	for _, packing := range []scheduling.Packing{scheduling.PackingKarpenter, scheduling.PackingCost} {
		b.Run(string(packing), func(b *testing.B) {
			in := realisticInput(b)
			in.Options.Packing = packing
			var r *scheduling.Results
			b.ResetTimer()
			for range b.N {
				r = scheduling.Solve(in)
			}
			b.StopTimer()
			price := r.TotalPricePerHour()
			b.ReportMetric(float64(len(in.Pods))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
			b.ReportMetric(price, "$/h")
			bound, optimum := bounds(in)
			b.ReportMetric(price/bound, "x-bound")
			b.ReportMetric(price/optimum, "x-optimum")
			b.ReportMetric(float64(len(r.NewNodeClaims)), "nodes")
		})
	}
}

// BenchmarkPrepare measures what a provisioning pass pays before placing anything, over the
// seed NodePools and the whole catalog: cold, and with a Cache from the previous pass.
func BenchmarkPrepare(b *testing.B) {
	in := realisticInput(b)
	in.Pods = in.Pods[:2]
	b.Run("cold", func(b *testing.B) {
		for range b.N {
			scheduling.Prepare(in)
		}
	})
	b.Run("cached", func(b *testing.B) {
		in.Cache = &scheduling.Cache{}
		scheduling.Prepare(in)
		b.ResetTimer()
		for range b.N {
			scheduling.Prepare(in)
		}
	})
}
