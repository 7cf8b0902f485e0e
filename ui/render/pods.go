package render

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/usage"
)

// PodColumns are the columns of :pods.
func PodColumns() []Column {
	return []Column{
		{Name: "NAMESPACE", Sort: 'S'},
		{Name: "NAME", Sort: 'N'},
		{Name: "READY", Align: AlignRight},
		{Name: "STATUS", Sort: 'T'},
		{Name: "NODE", Sort: 'O'},
		{Name: "CPU", Align: AlignRight, Sort: 'C', Numeric: true, DescFirst: true},
		{Name: "MEM", Align: AlignRight, Sort: 'M', Numeric: true, DescFirst: true},
		{Name: "CPU USED", Align: AlignRight, Sort: 'E', Numeric: true, DescFirst: true},
		{Name: "MEM USED", Align: AlignRight, Sort: 'F', Numeric: true, DescFirst: true},
		{Name: "AGE", Align: AlignRight, Sort: 'A', Numeric: true},
	}
}

// PodRow renders a pod with its requests (CPU in millicores, memory in bytes) and what it uses
// (nil without a figure).
func PodRow(p *corev1.Pod, cpu, mem int64, used *usage.Use, now time.Time) *Row {
	status, tone := PodStatus(p)
	node := p.Spec.NodeName
	if node == "" {
		node = None
	}
	cpuUsed, memUsed, nums := None, None, []float64{5: float64(cpu), 6: float64(mem), 9: ageSeconds(now, p.CreationTimestamp.Time)}
	if used != nil {
		cpuUsed, memUsed, nums[7], nums[8] = CPU(used.CPU), Mem(used.Mem), float64(used.CPU), float64(used.Mem)
	}
	return &Row{
		Key:    p.Namespace + "/" + p.Name,
		Cells:  []string{p.Namespace, p.Name, podReady(p), status, node, CPU(cpu), Mem(mem), cpuUsed, memUsed, Age(now, p.CreationTimestamp.Time)},
		Nums:   nums,
		Tone:   tone,
		Labels: p.Labels,
		Ref:    p,
	}
}

// PodStatus is what kubectl's STATUS column says of a pod, and its tone.
func PodStatus(p *corev1.Pod) (string, Tone) {
	if p.DeletionTimestamp != nil {
		return "Terminating", ToneKill
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			return w.Reason, ToneError
		}
	}
	switch p.Status.Phase {
	case corev1.PodRunning:
		return "Running", ToneNormal
	case corev1.PodSucceeded:
		return "Completed", ToneCompleted
	case corev1.PodFailed:
		return "Failed", ToneError
	}
	if p.Spec.NodeName != "" {
		return "ContainerCreating", ToneAdded
	}
	return "Pending", TonePending
}

func podReady(p *corev1.Pod) string {
	ready := 0
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Ready {
			ready++
		}
	}
	return strconv.Itoa(ready) + "/" + strconv.Itoa(len(p.Spec.Containers))
}

func ageSeconds(now, t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return now.Sub(t).Seconds()
}
