package rightsizing

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/usage"
)

// Policy is how observed use becomes a request.
type Policy struct {
	// Percentile of CPU use a request covers (0-1); memory covers its peak.
	Percentile float64
	// Headroom is the share added over the use covered (0.15 asks 15% more).
	Headroom float64
	// MinCPU (millicores) and MinMem (bytes) are the smallest requests suggested.
	MinCPU, MinMem int64
	// MinSamples is how many readings of a container a suggestion needs.
	MinSamples int
}

// DefaultPolicy covers the 95th percentile of CPU and the peak of memory with 15% headroom, never
// below 10m and 32Mi, from at least 10 readings of a container across the workload's pods (two
// and a half minutes of metrics-server's 15-second scrapes for a one-pod workload). The margin
// is the Vertical Pod Autoscaler recommender's default (recommendation-margin-fraction 0.15); its
// target is lower (the 90th percentile of CPU and of memory peaks, read in its
// flags), and 95% is its CPU upper bound: a window of 30 minutes sees less, so it fits higher.
func DefaultPolicy() Policy {
	return Policy{Percentile: 0.95, Headroom: 0.15, MinCPU: 10, MinMem: 32 << 20, MinSamples: 10}
}

// StatsFunc gives the use of one container of a workload across its pods.
type StatsFunc func(w Key, pods []*corev1.Pod, container string) usage.Stats

// Container is one container of a workload: per pod, what it requests, what it used (Use.CPU the
// policy's percentile, Use.Mem the peak) and what it should request.
type Container struct {
	Name                  string
	Request, Use, Suggest usage.Use
	Samples               int
}

// Workload is a workload's pods with its containers' suggestions and what they would save.
type Workload struct {
	Key  Key
	Pods []*corev1.Pod
	// Containers are those of its first pod (by namespace and name).
	Containers []Container
	// Requested is what all its pods' containers request together (pods of two ReplicaSets
	// of a Deployment in a rollout may differ).
	Requested usage.Use
	// Why says why there is no suggestion yet ("collecting usage: 3 of 10 readings"); "" when
	// there is one.
	Why string
	// Saving is the $/h the planned fleet saves when this workload alone takes its suggestion
	// (negative when it needs more); Simulated is false when it was not simulated.
	Saving    float64
	Simulated bool
}

// Request is what one pod of the workload requests (its containers together).
func (w *Workload) Request() usage.Use {
	return w.sum(func(c Container) usage.Use { return c.Request })
}

// Suggested is what one pod of the workload would request.
func (w *Workload) Suggested() usage.Use {
	return w.sum(func(c Container) usage.Use { return c.Suggest })
}

// Used is what one pod of the workload used: its containers' percentiles and peaks added.
func (w *Workload) Used() usage.Use {
	return w.sum(func(c Container) usage.Use { return c.Use })
}

func (w *Workload) sum(f func(Container) usage.Use) usage.Use {
	var t usage.Use
	for _, c := range w.Containers {
		t = t.Add(f(c))
	}
	return t
}

// Excess is what all its pods request beyond the suggestion: the capacity the fleet holds for
// nothing (negative when they request too little).
func (w *Workload) Excess() usage.Use {
	s, n := w.Suggested(), int64(len(w.Pods))
	return usage.Use{CPU: w.Requested.CPU - s.CPU*n, Mem: w.Requested.Mem - s.Mem*n}
}

// Changes reports whether the suggestion differs from what the workload requests.
func (w *Workload) Changes() bool { return w.Why == "" && w.Request() != w.Suggested() }

// Suggest groups pods by workload (DaemonSet pods and pods that have finished are left out:
// their requests are per-node overhead, or hold nothing) and suggests each container's requests
// from its use. A resource a container does not request stays unrequested; a suggestion never
// exceeds the container's limit.
func Suggest(ps []*corev1.Pod, stats StatsFunc, p Policy) []Workload {
	groups := map[Key][]*corev1.Pod{}
	for _, pod := range ps {
		if pods.IsOwnedByDaemonSet(pod) || pods.IsTerminal(pod) {
			continue
		}
		k := WorkloadOf(pod)
		groups[k] = append(groups[k], pod)
	}
	out := make([]Workload, 0, len(groups))
	for k, members := range groups {
		slices.SortFunc(members, func(a, b *corev1.Pod) int {
			return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
		})
		w := Workload{Key: k, Pods: members}
		for _, pod := range members {
			for _, c := range pod.Spec.Containers {
				req, _ := requested(c)
				w.Requested = w.Requested.Add(req)
			}
		}
		fewest := math.MaxInt
		for _, c := range members[0].Spec.Containers {
			st := stats(k, members, c.Name)
			fewest = min(fewest, st.Samples)
			req, limit := requested(c)
			w.Containers = append(w.Containers, Container{Name: c.Name, Request: req, Use: usage.Use{CPU: st.CPU, Mem: st.Mem},
				Suggest: p.size(req, usage.Use{CPU: st.CPU, Mem: st.Mem}, limit), Samples: st.Samples})
		}
		if fewest < p.MinSamples {
			w.Why = fmt.Sprintf("collecting usage: %d of %d readings", fewest, p.MinSamples)
			if fewest == 0 {
				w.Why = "no usage read: none of its pods has run in the window"
			}
			for i := range w.Containers {
				w.Containers[i].Suggest = w.Containers[i].Request
			}
		}
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b Workload) int {
		return cmp.Or(cmp.Compare(a.Key.Namespace, b.Key.Namespace), cmp.Compare(a.Key.Kind, b.Key.Kind), cmp.Compare(a.Key.Name, b.Key.Name))
	})
	return out
}

// requested is what a container requests and its limits (0 for none); a limit stands for a
// request left out, as the API server defaults it.
func requested(c corev1.Container) (req, limit usage.Use) {
	limit = usage.Of(c.Resources.Limits)
	req = usage.Of(c.Resources.Requests)
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		req.CPU = limit.CPU
	}
	if _, ok := c.Resources.Requests[corev1.ResourceMemory]; !ok {
		req.Mem = limit.Mem
	}
	return req, limit
}

// size is the request a use calls for: the use with headroom, at least the minimum, at most the
// limit; CPU in whole millicores, memory in whole MiB. A resource not requested stays so.
func (p Policy) size(req, used, limit usage.Use) usage.Use {
	fit := func(req, used, floor, limit, unit int64) int64 {
		if req == 0 {
			return 0
		}
		s := int64(math.Ceil(float64(used)*(1+p.Headroom)/float64(unit))) * unit
		s = max(s, floor)
		if limit > 0 {
			s = min(s, limit)
		}
		return s
	}
	return usage.Use{CPU: fit(req.CPU, used.CPU, p.MinCPU, limit.CPU, 1), Mem: fit(req.Mem, used.Mem, p.MinMem, limit.Mem, 1<<20)}
}
