package rightsizing

import (
	"cmp"
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// Report is the right-sizing of a fleet: each workload's suggestion and saving, and the fleet
// planned from nothing as requested (Before) and right-sized (After).
type Report struct {
	Workloads []Workload
	// Before and After are the planned fleets' $/h, their node counts and how many pods fit
	// nowhere in each.
	Before, After                           float64
	NodesBefore, NodesAfter                 int
	UnschedulableBefore, UnschedulableAfter int
	// Unsimulated counts the workloads whose own saving was not simulated (the context ended).
	Unsimulated int
}

// Saving is what right-sizing every workload saves in $/h.
func (r *Report) Saving() float64 { return r.Before - r.After }

// Simulate plans in's pods from nothing twice over the same nodes and NodePools, as requested
// and with every suggestion applied, then once per workload with only its own suggestion, the
// workloads with the most excess first, for as long as ctx lasts. in should hold every pod a
// consolidated fleet would place (see provisioning.Replan), so that the difference is what
// consolidation would save once requests are right.
func Simulate(ctx context.Context, in *scheduling.Input, ws []Workload) Report {
	r := Report{Workloads: ws}
	byKey := make(map[Key]*Workload, len(ws))
	for i := range ws {
		if ws[i].Changes() {
			byKey[ws[i].Key] = &ws[i]
		}
	}
	prep := scheduling.Prepare(in)
	resized := func(only *Workload) []*corev1.Pod {
		out := make([]*corev1.Pod, len(in.Pods))
		for i, p := range in.Pods {
			out[i] = p
			if w := byKey[WorkloadOf(p)]; w != nil && (only == nil || only == w) {
				out[i] = Resize(p, w)
			}
		}
		return out
	}
	before := prep.Solve(in.Pods, nil, nil)
	after := prep.Solve(resized(nil), nil, nil)
	r.Before, r.NodesBefore, r.UnschedulableBefore = before.TotalPricePerHour(), len(before.NewNodeClaims), len(before.Unschedulable)
	r.After, r.NodesAfter, r.UnschedulableAfter = after.TotalPricePerHour(), len(after.NewNodeClaims), len(after.Unschedulable)

	order := make([]*Workload, 0, len(byKey))
	for _, w := range byKey {
		order = append(order, w)
	}
	slices.SortFunc(order, func(a, b *Workload) int { return compareExcess(b, a) })
	for _, w := range order {
		if ctx.Err() != nil {
			r.Unsimulated++
			continue
		}
		w.Saving, w.Simulated = r.Before-prep.Solve(resized(w), nil, nil).TotalPricePerHour(), true
	}
	return r
}

// compareExcess orders workloads by the excess they hold, CPU first, then memory, then by key.
func compareExcess(a, b *Workload) int {
	ea, eb := a.Excess(), b.Excess()
	return cmp.Or(cmp.Compare(ea.CPU, eb.CPU), cmp.Compare(ea.Mem, eb.Mem), cmp.Compare(b.Key.String(), a.Key.String()))
}

// Resize returns the pod with its containers' requests set to the workload's suggestions (the
// containers matched by name); the pod itself is not changed.
func Resize(p *corev1.Pod, w *Workload) *corev1.Pod {
	out := *p
	out.Spec.Containers = slices.Clone(p.Spec.Containers)
	for i := range out.Spec.Containers {
		c := &out.Spec.Containers[i]
		j := slices.IndexFunc(w.Containers, func(s Container) bool { return s.Name == c.Name })
		if j < 0 {
			continue
		}
		s := w.Containers[j].Suggest
		c.Resources.Requests = c.Resources.Requests.DeepCopy()
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		if s.CPU > 0 {
			c.Resources.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(s.CPU, resource.DecimalSI)
		}
		if s.Mem > 0 {
			c.Resources.Requests[corev1.ResourceMemory] = *resource.NewQuantity(s.Mem, resource.BinarySI)
		}
	}
	return &out
}
