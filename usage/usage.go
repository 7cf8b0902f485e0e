package usage

import (
	"maps"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// Use is CPU in millicores and memory in bytes.
type Use struct{ CPU, Mem int64 }

// Add returns the sum of two uses.
func (u Use) Add(o Use) Use { return Use{CPU: u.CPU + o.CPU, Mem: u.Mem + o.Mem} }

// Of reads CPU and memory from a resource list, as metrics.k8s.io reports them.
func Of(l corev1.ResourceList) Use {
	return Use{CPU: l.Cpu().MilliValue(), Mem: l.Memory().Value()}
}

// Point is one pod's reading: what each of its containers used over the metrics window that
// ended at Time.
type Point struct {
	Time       time.Time
	Containers map[string]Use
}

// Total is what the pod's containers used together.
func (p Point) Total() Use {
	var t Use
	for _, u := range p.Containers {
		t = t.Add(u)
	}
	return t
}

// PointOf is a pod's reading as metrics.k8s.io serves it.
func PointOf(pm *metricsv1beta1.PodMetrics) Point {
	pt := Point{Time: pm.Timestamp.Time, Containers: make(map[string]Use, len(pm.Containers))}
	for _, c := range pm.Containers {
		pt.Containers[c.Name] = Of(c.Usage)
	}
	return pt
}

// Reading is one poll of metrics.k8s.io: nodes by name and pods by "namespace/name".
type Reading struct {
	Time  time.Time
	Nodes map[string]Use
	Pods  map[string]Point
}

// Window keeps each pod's points for Span. Points that repeat a pod's last Time (metrics-server
// answers with the same scrape until its next one) are kept once, so a percentile weighs every
// scrape equally however often it is polled. Not safe for concurrent use: its owner guards it.
type Window struct {
	Span time.Duration
	pods map[string][]Point
}

// NewWindow returns an empty window of span.
func NewWindow(span time.Duration) *Window {
	return &Window{Span: span, pods: map[string][]Point{}}
}

// Add records a reading and forgets points older than Span before its Time, and pods that have
// none left.
func (w *Window) Add(r Reading) {
	for key, p := range r.Pods {
		pts := w.pods[key]
		if n := len(pts); n > 0 && !p.Time.After(pts[n-1].Time) {
			continue
		}
		w.pods[key] = append(pts, p)
	}
	cut := r.Time.Add(-w.Span)
	for key, pts := range w.pods {
		i := 0
		for i < len(pts) && pts[i].Time.Before(cut) {
			i++
		}
		switch {
		case i == len(pts):
			delete(w.pods, key)
		case i > 0:
			w.pods[key] = slices.Clone(pts[i:])
		}
	}
}

// Points counts the points the window holds.
func (w *Window) Points() int {
	n := 0
	for _, pts := range w.pods {
		n += len(pts)
	}
	return n
}

// Pods are the pods the window holds points of, sorted.
func (w *Window) Pods() []string { return slices.Sorted(maps.Keys(w.pods)) }

// Stats summarise a container's use over a window, across the pods asked about.
type Stats struct {
	// Samples is how many points they hold.
	Samples int
	// CPU is the high percentile of CPU asked for, Mem the peak of memory.
	CPU, Mem int64
}

// Stats are the use of a container across pods: the percentile p (0-1, nearest rank) of CPU and
// the peak of memory, over every point of those pods. Memory takes the peak because a container
// over its memory is killed, while one over its CPU is only slowed.
func (w *Window) Stats(pods []string, container string, p float64) Stats {
	var cpu []int64
	var s Stats
	for _, key := range pods {
		for _, pt := range w.pods[key] {
			u, ok := pt.Containers[container]
			if !ok {
				continue
			}
			cpu = append(cpu, u.CPU)
			s.Mem = max(s.Mem, u.Mem)
		}
	}
	s.Samples = len(cpu)
	s.CPU = Percentile(cpu, p)
	return s
}

// Percentile is the nearest-rank percentile p (0-1) of xs, or 0 for none. It sorts xs.
func Percentile(xs []int64, p float64) int64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	rank := int(math.Ceil(p*float64(len(xs)))) - 1 // 1-based rank ceil(p*n)
	return xs[min(max(rank, 0), len(xs)-1)]
}

// Snapshot is what the console shows of usage: the latest figures, and why there are none or
// why they are old. It is immutable once published.
type Snapshot struct {
	// Status says why figures are missing or stale ("metrics.k8s.io is not served: ..."); ""
	// when the last poll succeeded.
	Status string
	// Time is when the figures were read; zero when there are none.
	Time time.Time
	// Nodes are by name, Pods by namespace and name (looked up without building a string).
	Nodes map[string]Use
	Pods  map[types.NamespacedName]Use
}

// Has reports whether the snapshot holds figures.
func (s *Snapshot) Has() bool { return s != nil && !s.Time.IsZero() }
