package plan

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/nodepilot/nodepilot/rightsizing"
	"github.com/nodepilot/nodepilot/ui/render"
	"github.com/nodepilot/nodepilot/usage"
)

// RightSizing is what `plan --usage` adds to a plan: each workload's requests against the use
// readings show, and the plan's price as requested and right-sized.
type RightSizing struct {
	Workloads []SizedWorkload `json:"workloads"`
	// PricePerHour, Nodes and Unschedulable are the plan's as requested and right-sized.
	PricePerHourAsRequested  float64 `json:"pricePerHourAsRequested"`
	PricePerHourRightSized   float64 `json:"pricePerHourRightSized"`
	NodesAsRequested         int     `json:"nodesAsRequested"`
	NodesRightSized          int     `json:"nodesRightSized"`
	UnschedulableAsRequested int     `json:"unschedulableAsRequested"`
	UnschedulableRightSized  int     `json:"unschedulableRightSized"`
	// Readings counts the readings used; Unmatched those of pods no workload of the manifests
	// makes.
	Readings  int `json:"readings"`
	Unmatched int `json:"unmatched"`
}

// SizedWorkload is one workload's right-sizing: per pod, what it requests, what it used (the
// 95th percentile of CPU, the peak of memory) and what it should request.
type SizedWorkload struct {
	Workload  string              `json:"workload"`
	Pods      int                 `json:"pods"`
	Readings  int                 `json:"readings"`
	Requests  corev1.ResourceList `json:"requests"`
	Used      corev1.ResourceList `json:"used"`
	Suggested corev1.ResourceList `json:"suggested"`
	// SavingPerHour is what the plan saves when this workload alone takes its suggestion.
	SavingPerHour float64 `json:"savingPerHour"`
	// Pending says why there is no suggestion ("collecting usage: 3 of 10 readings").
	Pending string `json:"pending,omitempty"`
}

// offlineSpan keeps every reading of a file: they span what the user collected.
const offlineSpan = 100 * 365 * 24 * time.Hour

// RightSize suggests requests for the problem's pods from metrics.k8s.io readings and prices
// them by planning the problem again with them. A reading belongs to the workload in its
// namespace whose pods' labels it carries (metrics-server copies a pod's labels), the most
// specific first, else the one its name starts with.
func RightSize(ctx context.Context, pr *Problem, readings []*metricsv1beta1.PodMetrics, policy rightsizing.Policy) *RightSizing {
	workloads := map[rightsizing.Key]*corev1.Pod{}
	for _, p := range pr.Input.Pods {
		if k := rightsizing.WorkloadOf(p); workloads[k] == nil {
			workloads[k] = p
		}
	}
	keys := make([]rightsizing.Key, 0, len(workloads))
	for k := range workloads {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b rightsizing.Key) int { return strings.Compare(a.String(), b.String()) })

	// The readings, oldest first, make one window (a scrape read twice counts once), and each
	// workload's stats are its readings' pods'.
	sorted := slices.SortedStableFunc(slices.Values(readings), func(a, b *metricsv1beta1.PodMetrics) int {
		return a.Timestamp.Compare(b.Timestamp.Time)
	})
	out := &RightSizing{}
	window := usage.NewWindow(offlineSpan)
	podsOf := map[rightsizing.Key][]string{}
	seen := map[string]bool{}
	for _, pm := range sorted {
		k, ok := owner(pm, keys, workloads)
		if !ok {
			out.Unmatched++
			continue
		}
		pod := pm.Namespace + "/" + pm.Name
		if !seen[pod] {
			seen[pod] = true
			podsOf[k] = append(podsOf[k], pod)
		}
		window.Add(usage.Reading{Time: pm.Timestamp.Time, Pods: map[string]usage.Point{pod: usage.PointOf(pm)}})
	}
	out.Readings = window.Points()
	stats := func(k rightsizing.Key, _ []*corev1.Pod, container string) usage.Stats {
		return window.Stats(podsOf[k], container, policy.Percentile)
	}
	ws := rightsizing.Suggest(pr.Input.Pods, stats, policy)
	r := rightsizing.Simulate(ctx, pr.Input, ws)
	out.PricePerHourAsRequested, out.PricePerHourRightSized = roundCents(r.Before), roundCents(r.After)
	out.NodesAsRequested, out.NodesRightSized = r.NodesBefore, r.NodesAfter
	out.UnschedulableAsRequested, out.UnschedulableRightSized = r.UnschedulableBefore, r.UnschedulableAfter
	for _, w := range r.Workloads {
		sw := SizedWorkload{Workload: w.Key.String(), Pods: len(w.Pods), Requests: resources(w.Request()), Used: resources(w.Used()),
			Suggested: resources(w.Suggested()), SavingPerHour: roundCents(w.Saving), Pending: w.Why}
		for _, c := range w.Containers {
			sw.Readings = max(sw.Readings, c.Samples)
		}
		out.Workloads = append(out.Workloads, sw)
	}
	return out
}

// owner is the workload a reading belongs to.
func owner(pm *metricsv1beta1.PodMetrics, keys []rightsizing.Key, workloads map[rightsizing.Key]*corev1.Pod) (rightsizing.Key, bool) {
	var best rightsizing.Key
	score := -1
	for _, k := range keys {
		if k.Namespace != pm.Namespace {
			continue
		}
		labels := workloads[k].Labels
		switch {
		case len(labels) > 0 && subset(labels, pm.Labels) && len(labels) > score:
			best, score = k, len(labels)
		case score < 0 && (pm.Name == k.Name || len(pm.Name) > len(k.Name) && pm.Name[:len(k.Name)+1] == k.Name+"-"):
			best, score = k, 0
		}
	}
	return best, score >= 0
}

func subset(small, big map[string]string) bool {
	for k, v := range small {
		if big[k] != v {
			return false
		}
	}
	return true
}

// resources writes a use as a resource list: CPU in millicores, memory in bytes.
func resources(u usage.Use) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(u.CPU, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(u.Mem, resource.BinarySI),
	}
}

// renderRightSizing is the table section of `plan --usage`: per pod of each workload, its
// requests, use and suggestion, and what right-sizing it alone saves.
func renderRightSizing(w io.Writer, r *RightSizing) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\nRIGHT-SIZING (%d readings", r.Readings)
	if r.Unmatched > 0 {
		fmt.Fprintf(tw, "; %s of pods that no workload here makes left out", render.Plural(r.Unmatched, "reading"))
	}
	fmt.Fprintln(tw, "; per pod: CPU at the 95th percentile, memory at its peak, 15% headroom)")
	fmt.Fprintln(tw, "WORKLOAD\tPODS\tREADINGS\tCPU REQ\tCPU USED\tCPU FIT\tMEM REQ\tMEM USED\tMEM FIT\tSAVES $/HOUR")
	for _, sw := range r.Workloads {
		cpu := func(l corev1.ResourceList) string { return render.CPU(l.Cpu().MilliValue()) }
		mem := func(l corev1.ResourceList) string { return render.Mem(l.Memory().Value()) }
		if sw.Pending != "" {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t-\t-\t%s\t-\t-\t%s\n", sw.Workload, sw.Pods, sw.Readings, cpu(sw.Requests), mem(sw.Requests), sw.Pending)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sw.Workload, sw.Pods, sw.Readings, cpu(sw.Requests), cpu(sw.Used), cpu(sw.Suggested),
			mem(sw.Requests), mem(sw.Used), mem(sw.Suggested), dollars(sw.SavingPerHour))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	saving := r.PricePerHourAsRequested - r.PricePerHourRightSized
	fmt.Fprintf(w, "right-sized: %s/hour on %s, against %s/hour on %s as requested: saves %s/hour (%s/month)\n",
		dollars(r.PricePerHourRightSized), newNodes(r.NodesRightSized), dollars(r.PricePerHourAsRequested), newNodes(r.NodesAsRequested), dollars(saving), render.Monthly(saving))
	if r.UnschedulableAsRequested != r.UnschedulableRightSized {
		fmt.Fprintf(w, "right-sized, %d pods fit nowhere, against %d as requested\n", r.UnschedulableRightSized, r.UnschedulableAsRequested)
	}
	return nil
}

func newNodes(n int) string {
	if n == 1 {
		return "1 new node"
	}
	return fmt.Sprintf("%d new nodes", n)
}
