package scheduling

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The workload of Karpenter's scheduling benchmark (issue 2): 400 synthetic instance types, one
// NodePool without limits, pods in five classes, requests drawn with seed 42.
func BenchmarkSolve100(b *testing.B)   { benchmarkSolve(b, 100, false, PreferencesRespect) }
func BenchmarkSolve1000(b *testing.B)  { benchmarkSolve(b, 1000, false, PreferencesRespect) }
func BenchmarkSolve5000(b *testing.B)  { benchmarkSolve(b, 5000, false, PreferencesRespect) }
func BenchmarkSolve10000(b *testing.B) { benchmarkSolve(b, 10000, false, PreferencesRespect) }
func BenchmarkSolve20000(b *testing.B) { benchmarkSolve(b, 20000, false, PreferencesRespect) }

// 4,000 pods that also carry preferences: zone 1 preferred, an unsatisfiable zonal
// anti-affinity (weight 10) and a hostname anti-affinity (weight 1).
func BenchmarkSolvePreferencesRespected4000(b *testing.B) {
	benchmarkSolve(b, 4000, true, PreferencesRespect)
}
func BenchmarkSolvePreferencesIgnored4000(b *testing.B) {
	benchmarkSolve(b, 4000, true, PreferencesIgnore)
}

func benchmarkSolve(b *testing.B, n int, preferences bool, policy PreferencePolicy) {
	in := &Input{
		NodePools: []NodePool{pool("default", 0, syntheticTypes(400))},
		Pods:      benchmarkPods(n, preferences),
		Options:   Options{PreferencePolicy: policy},
	}
	var r *Results
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		r = Solve(in)
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	if len(r.Unschedulable) > 0 {
		b.Fatalf("%d pods unschedulable: %+v", len(r.Unschedulable), r.Unschedulable[0].Reasons)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(len(r.NewNodeClaims)), "nodes")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(n), "B/pod")
	b.ReportMetric(r.TotalPricePerHour(), "$/h")
}

// benchmarkPods builds n pods split evenly in five classes: plain, zonal topology spread,
// hostname topology spread, zonal self pod-affinity, and hostname anti-affinity selecting each
// other. Spread and affinity pods select their own group among seven.
func benchmarkPods(n int, preferences bool) []*corev1.Pod {
	rng := rand.New(rand.NewSource(42))
	cpus := []string{"100m", "250m", "500m", "1000m", "1500m"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1024Mi", "2048Mi", "4096Mi"}
	groups := []string{"a", "b", "c", "d", "e", "f", "g"}
	out := make([]*corev1.Pod, 0, n)
	for i := range n {
		class := i % 5
		group := groups[rng.Intn(len(groups))]
		p := pod(fmt.Sprintf("pod-%d", i), cpus[rng.Intn(len(cpus))], mems[rng.Intn(len(mems))])
		p.Labels = map[string]string{"bench": "true", "class": fmt.Sprint(class)}
		self := map[string]string{"class": fmt.Sprint(class), "group": group}
		switch class {
		case 1:
			p.Labels["group"] = group
			withSpread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, self)(p)
		case 2:
			p.Labels["group"] = group
			withSpread(corev1.LabelHostname, 1, corev1.DoNotSchedule, self)(p)
		case 3:
			p.Labels["group"] = group
			withPodAffinity(corev1.LabelTopologyZone, self)(p)
		case 4:
			withAntiAffinity(corev1.LabelHostname, map[string]string{"class": "4"})(p)
		}
		if preferences {
			withPreferredNodeAffinity(1, corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1")(p)
			withPreferredAntiAffinity(corev1.LabelTopologyZone, 10, map[string]string{"bench": "true"})(p)
			withPreferredAntiAffinity(corev1.LabelHostname, 1, map[string]string{"class": fmt.Sprint(class)})(p)
		}
		out = append(out, p)
	}
	return out
}
