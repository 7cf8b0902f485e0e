package scheduling

import (
	"fmt"
	"testing"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	podutil "github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// verifyPlan checks a plan against the rules independently of the solver's bookkeeping: every
// pod placed once, every instance type option holds its pods, and every hard topology
// constraint of every new pod holds in the plan. It assumes no existing nodes.
func verifyPlan(t *testing.T, in *Input, r *Results) {
	t.Helper()
	type placed struct {
		pod  *corev1.Pod
		nc   *NodeClaim
		zone string
	}
	var all []placed
	seen := map[string]bool{}
	for _, nc := range r.NewNodeClaims {
		var cpu, mem int64
		for _, p := range nc.Pods {
			if seen[p.Name] {
				t.Fatalf("pod %s placed twice", p.Name)
			}
			seen[p.Name] = true
			req := podutil.Requests(p)
			cpu += req.Cpu().MilliValue()
			mem += req.Memory().Value()
			all = append(all, placed{p, nc, zoneOf(nc)})
			if c := nc.Requirements.Compatible(requirements.FromLabels(p.Spec.NodeSelector), karpv1.WellKnownLabels().Has); c != nil {
				t.Errorf("pod %s on %s: %v", p.Name, nc.Hostname, c)
			}
		}
		for _, it := range nc.InstanceTypes {
			alloc := it.Allocatable()
			if cpu+nc.DaemonSetOverhead.Cpu().MilliValue() > alloc.Cpu().MilliValue() || mem > alloc.Memory().Value() ||
				int64(len(nc.Pods)) > alloc.Pods().Value() {
				t.Errorf("%s: option %s cannot hold its %d pods (cpu %dm, memory %d)", nc.Hostname, it.Name, len(nc.Pods), cpu, mem)
			}
			if c := it.Requirements.Intersects(nc.Requirements); c != nil {
				t.Errorf("%s: option %s conflicts with the nodeclaim: %v", nc.Hostname, it.Name, c)
			}
		}
	}
	if len(seen)+len(r.Unschedulable) != len(in.Pods) {
		t.Fatalf("%d placed + %d unschedulable != %d pods", len(seen), len(r.Unschedulable), len(in.Pods))
	}
	selectors := map[*metav1.LabelSelector]labels.Selector{}
	matches := func(sel *metav1.LabelSelector, p *corev1.Pod) bool {
		s, ok := selectors[sel]
		if !ok {
			var err error
			if s, err = metav1.LabelSelectorAsSelector(sel); err != nil {
				s = labels.Nothing()
			}
			selectors[sel] = s
		}
		return s.Matches(labels.Set(p.Labels))
	}
	// counts memoizes, per selector and topology key, the matching pods per domain.
	type countKey struct {
		sel *metav1.LabelSelector
		key string
	}
	countCache := map[countKey]map[string]int{}
	domain := func(x placed, key string) string {
		if key == corev1.LabelHostname {
			return x.nc.Hostname
		}
		return x.zone
	}
	for _, x := range all {
		for _, c := range x.pod.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				continue
			}
			counts, ok := countCache[countKey{c.LabelSelector, c.TopologyKey}]
			if !ok {
				counts = map[string]int{}
				for _, y := range all {
					if matches(c.LabelSelector, y.pod) {
						counts[domain(y, c.TopologyKey)]++
					}
				}
				countCache[countKey{c.LabelSelector, c.TopologyKey}] = counts
			}
			if c.TopologyKey == corev1.LabelHostname {
				if n := counts[x.nc.Hostname]; n > int(c.MaxSkew) {
					t.Errorf("%s: %d matching pods on %s, maxSkew %d", x.pod.Name, n, x.nc.Hostname, c.MaxSkew)
				}
				continue
			}
			lo, hi := -1, 0
			for _, z := range []string{"test-zone-1", "test-zone-2", "test-zone-3"} {
				if lo < 0 || counts[z] < lo {
					lo = counts[z]
				}
				hi = max(hi, counts[z])
			}
			if counts[""] > 0 || hi-lo > int(c.MaxSkew) {
				t.Errorf("%s: zone counts %v exceed maxSkew %d", x.pod.Name, counts, c.MaxSkew)
			}
		}
		if a := x.pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
			for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				for _, y := range all {
					if y.pod != x.pod && matches(term.LabelSelector, y.pod) && domain(x, term.TopologyKey) == domain(y, term.TopologyKey) {
						t.Errorf("%s and %s share %s %s despite anti-affinity", x.pod.Name, y.pod.Name, term.TopologyKey, domain(x, term.TopologyKey))
					}
				}
			}
		}
		if a := x.pod.Spec.Affinity; a != nil && a.PodAffinity != nil {
			for _, term := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				found := false
				for _, y := range all {
					if matches(term.LabelSelector, y.pod) && domain(x, term.TopologyKey) == domain(y, term.TopologyKey) && domain(x, term.TopologyKey) != "" {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: no matching pod in its %s", x.pod.Name, term.TopologyKey)
				}
			}
		}
	}
}

func TestBenchmarkWorkloadPlanIsValid(t *testing.T) {
	for _, tt := range []struct {
		n           int
		preferences bool
	}{{500, false}, {2000, false}, {500, true}} {
		t.Run(fmt.Sprintf("%d pods, preferences %v", tt.n, tt.preferences), func(t *testing.T) {
			in := &Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(400))}, Pods: benchmarkPods(tt.n, tt.preferences)}
			r := Solve(in)
			if len(r.Unschedulable) != 0 {
				t.Fatalf("%d unschedulable", len(r.Unschedulable))
			}
			// Anti-affinity between the fifth of the pods in class 4 needs that many nodes, and
			// no more should be needed. With preferences, the zone-1 preference pins those nodes to
			// zone 1, so zonal-spread pods relaxed into zones 2 and 3 need a few nodes of their own.
			want, slack := tt.n/5, 0
			if tt.preferences {
				slack = tt.n / 5 * 3 / 100
			}
			if got := len(r.NewNodeClaims); got < want || got > want+slack {
				t.Errorf("%d nodes, want %d (up to %d more with preferences)", got, want, slack)
			}
			verifyPlan(t, in, r)
		})
	}
}
