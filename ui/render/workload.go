package render

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/rightsizing"
)

// DescribeWorkload says how a workload's fit was computed from its use, what it saves, and the
// command that applies it.
func DescribeWorkload(w *rightsizing.Workload, p rightsizing.Policy) Text {
	var t Writer
	t.Add("Workload ", ToneHeading).Add(w.Key.String(), ToneHeading).End()
	names := make([]string, 0, 5)
	for _, pod := range w.Pods[:min(len(w.Pods), 5)] {
		names = append(names, pod.Name)
	}
	if len(w.Pods) > len(names) {
		names = append(names, fmt.Sprintf("and %d more", len(w.Pods)-len(names)))
	}
	t.Field(2, "pods", fmt.Sprintf("%d: %s", len(w.Pods), strings.Join(names, ", ")))
	ex := w.Excess()
	t.Field(2, "excess", fmt.Sprintf("its pods request %s CPU and %s memory beyond the fit", signed(ex.CPU, CPU), signed(ex.Mem, Mem)))
	t.Blank()
	t.Heading("Containers, per pod")
	for _, c := range w.Containers {
		t.Add("  "+c.Name, ToneKey).Add(fmt.Sprintf(" (%d readings)", c.Samples), ToneNormal).End()
		t.Field(4, "requests", fmt.Sprintf("cpu %s, memory %s", CPU(c.Request.CPU), Mem(c.Request.Mem)))
		if w.Why != "" {
			continue
		}
		t.Field(4, "used", fmt.Sprintf("cpu %s (%.0fth percentile), memory %s (peak)", CPU(c.Use.CPU), 100*p.Percentile, Mem(c.Use.Mem)))
		t.Field(4, "fits", fmt.Sprintf("cpu %s, memory %s", orUnrequested(c.Suggest.CPU, CPU), orUnrequested(c.Suggest.Mem, Mem)))
	}
	t.Blank()
	t.Heading("Fit")
	if w.Why != "" {
		t.Para(2, w.Why, ToneCompleted)
		return t.Text()
	}
	t.Para(2, fmt.Sprintf("the %.0fth percentile of CPU and the peak of memory over the window, plus %.0f%% headroom,",
		100*p.Percentile, 100*p.Headroom), ToneNormal)
	t.Para(2, fmt.Sprintf("at least %s CPU and %s memory, at most the container's limit; a resource not requested stays so",
		CPU(p.MinCPU), Mem(p.MinMem)), ToneNormal)
	if ex.CPU < 0 || ex.Mem < 0 {
		t.Para(2, "it requests less than it uses: the scheduler packs it onto nodes without the room it needs,", ToneWarning)
		t.Para(2, "where it may be starved of CPU or evicted for memory", ToneWarning)
	}
	t.Blank()
	t.Heading("Saving")
	switch {
	case w.Simulated:
		t.Add("  "+Dollars(w.Saving)+"/h ("+Monthly(w.Saving)+"/month)", ToneCost).
			Add(": the fleet planned from nothing for every pod, with only this workload right-sized, against as requested", ToneNormal).End()
	case w.Changes():
		t.Para(2, "not simulated: the simulation of the workloads with more excess took the time", ToneCompleted)
	default:
		t.Para(2, "nothing to change: it requests what fits", ToneNormal)
	}
	if cmd := applyCommand(w); cmd != "" && w.Changes() {
		t.Blank()
		t.Heading("Apply")
		t.Para(2, cmd, ToneKey)
	}
	return t.Text()
}

// applyCommand is the kubectl command that sets the fit, for kinds kubectl set resources takes.
func applyCommand(w *rightsizing.Workload) string {
	switch w.Key.Kind {
	case "Deployment", "StatefulSet", "ReplicaSet", "Job", "ReplicationController":
	default:
		return ""
	}
	var b strings.Builder
	for _, c := range w.Containers {
		var req []string
		if c.Suggest.CPU > 0 {
			req = append(req, "cpu="+resource.NewMilliQuantity(c.Suggest.CPU, resource.DecimalSI).String())
		}
		if c.Suggest.Mem > 0 {
			req = append(req, "memory="+resource.NewQuantity(c.Suggest.Mem, resource.BinarySI).String())
		}
		if len(req) == 0 || c.Suggest == c.Request {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" && ")
		}
		fmt.Fprintf(&b, "kubectl -n %s set resources %s/%s -c %s --requests=%s", w.Key.Namespace, strings.ToLower(w.Key.Kind), w.Key.Name, c.Name, strings.Join(req, ","))
	}
	return b.String()
}

func orUnrequested(v int64, format func(int64) string) string {
	if v == 0 {
		return "not requested"
	}
	return format(v)
}
