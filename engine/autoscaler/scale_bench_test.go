package autoscaler_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/aws/awstest"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// seedNodePools are the demo's seed NodePools that a fleet at scale runs on (the manifests our
// users write): general-purpose (weight 50, large to 2xlarge, budgets 10% and none on weekdays
// from 09:00) takes the pods that choose no pool, spot-workloads (large to 4xlarge) and the
// tainted spot-batch and on-demand-general the pods that select them.
var seedNodePools = []string{
	"02-nodepool-on-demand-general.yaml",
	"03-nodepool-spot-batch.yaml",
	"07-nodepool-general-purpose.yaml",
	"09-nodepool-spot-workloads.yaml",
}

// seedFleet provisions pods pods of mixed shapes (500m to 2 CPUs, 1 to 8 GiB per CPU; one
// Deployment of 100 in three with a PDB allowing one unavailable) on the seed NodePools and the
// embedded catalog, and stops the autoscaler. The seeds' limits (1,000 and 2,000 CPUs) are
// lifted, since they would hold the fleet far below 5,000 nodes; nothing else is changed.
// general-purpose's sizes make about one node per ten pods.
func seedFleet(tb testing.TB, pods int) *harness {
	tb.Helper()
	types, err := awstest.CatalogInstanceTypes()
	if err != nil {
		tb.Fatal(err)
	}
	// Monday 06:00, outside general-purpose's weekday freeze (a budget of 0 from 09:00 for eight
	// hours, when the harness's clock would start): its nodes are candidates, as on most hours.
	start := enginetest.DefaultStart().Add(-3 * time.Hour)
	h := newHarnessWith(tb, []enginetest.Option{enginetest.WithInstanceTypes(types), enginetest.WithStart(start)})
	// Built with every change heard at once, as before the harness's watch lag, so that the
	// fleets and their figures compare from stop to stop.
	h.API.SetWatchLag(0)
	for _, file := range seedNodePools {
		data, err := os.ReadFile(filepath.Join("..", "..", "demo", "manifests", file))
		if err != nil {
			tb.Fatal(err)
		}
		var np karpv1.NodePool
		if err := yaml.UnmarshalStrict(data, &np); err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		np.Spec.Limits = nil
		h.NodeClass(np.Spec.Template.Spec.NodeClassRef.Name)
		if _, err := h.API.CreateNodePool(tb.Context(), &np); err != nil {
			tb.Fatal(err)
		}
	}
	dedicated := enginetest.WithTolerations(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	pool := func(name string) enginetest.PodOption {
		return enginetest.WithNodeSelector(map[string]string{karpv1.NodePoolLabelKey: name})
	}
	placements := [][]enginetest.PodOption{
		nil, nil, nil, nil, nil, nil, // general-purpose, by weight
		{pool("spot-workloads")},
		{pool("spot-batch"), dedicated},
		{pool("on-demand-general"), dedicated},
	}
	rng := rand.New(rand.NewSource(7))
	cpus := []int64{500, 1000, 1500, 2000}
	gibPerCPU := []int64{1, 2, 4, 8}
	for d := range pods / 100 {
		name := fmt.Sprintf("app-%d", d)
		cpu := cpus[rng.Intn(len(cpus))]
		mem := cpu * gibPerCPU[rng.Intn(len(gibPerCPU))] << 30 / 1000
		labels := map[string]string{"app": name}
		opts := append([]enginetest.PodOption{enginetest.WithLabels(labels)}, placements[rng.Intn(len(placements))]...)
		h.Deployment(name, 100, corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(mem, resource.BinarySI)}, opts...)
		if d%3 == 0 {
			h.PDB(name, labels, "", "1")
		}
	}
	h.Advance(5*time.Minute, 10*time.Second)
	if err := h.CheckPodsRunning(); err != nil {
		tb.Fatal(err)
	}
	h.stop()
	return h
}

// BenchmarkDisruptionPassAtScale measures one full disruption pass (a dry run: emptiness, drift,
// multi-node and single-node consolidation, under budgets and PDBs) over fleets of the seed
// NodePools from about 500 to about 5,000 nodes, ten pods a node, none of which consolidation can
// improve much: the pass that finds nothing does the most work. quiet changes nothing between
// the passes; busy restarts a container in one pod of a hundred before each, as a busy cluster's
// status updates do. heap-MiB is the live heap after the passes (the fleet's state included).
func BenchmarkDisruptionPassAtScale(b *testing.B) {
	for _, pods := range []int{5000, 10000, 20000, 50000} {
		b.Run(fmt.Sprintf("pods=%d", pods), func(b *testing.B) {
			h := seedFleet(b, pods)
			for _, run := range []struct {
				name  string
				churn func()
			}{{"quiet", nil}, {"busy", func() { restartContainers(b, h, 100) }}} {
				b.Run(run.name, func(b *testing.B) {
					b.ReportAllocs()
					benchmarkPass(b, h, run.churn)
					runtime.GC()
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "heap-MiB")
				})
			}
			runtime.KeepAlive(h)
		})
	}
}

// restartContainers counts a container restart in every nth pod's status.
func restartContainers(b *testing.B, h *harness, nth int) {
	for i, p := range h.API.Pods() {
		if i%nth != 0 {
			continue
		}
		if _, err := h.API.UpdatePodStatus(b.Context(), p.Namespace, p.Name, func(p *corev1.Pod) error {
			if len(p.Status.ContainerStatuses) == 0 {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app"}}
			}
			p.Status.ContainerStatuses[0].RestartCount++
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
