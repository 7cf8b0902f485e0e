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

// PodFigures are what a pod row shows beside the pod, figured once per pod and usage reading
// (a World reuses them while neither changes): its key ("namespace/name"), its requests (CPU in
// millicores, memory in bytes) and its use, with their cells.
type PodFigures struct {
	Key      string
	CPU, Mem int64
	Used     usage.Use
	HasUse   bool
	cells    [4]string // requests, then use
}

// NewPodFigures figures a pod's requests and use (nil without a figure).
func NewPodFigures(key string, cpu, mem int64, used *usage.Use) PodFigures {
	f := PodFigures{Key: key, CPU: cpu, Mem: mem, cells: [4]string{CPU(cpu), Mem(mem), None, None}}
	if used != nil {
		f.Used, f.HasUse = *used, true
		f.cells[2], f.cells[3] = CPU(used.CPU), Mem(used.Mem)
	}
	return f
}

// PodRow renders a pod with its figures.
func PodRow(p *corev1.Pod, f PodFigures, now time.Time) *Row {
	status, tone := PodStatus(p)
	node := p.Spec.NodeName
	if node == "" {
		node = None
	}
	nums := []float64{5: float64(f.CPU), 6: float64(f.Mem), 9: ageSeconds(now, p.CreationTimestamp.Time)}
	if f.HasUse {
		nums[7], nums[8] = float64(f.Used.CPU), float64(f.Used.Mem)
	}
	return &Row{
		Key:    f.Key,
		Cells:  []string{p.Namespace, p.Name, podReady(p), status, node, f.cells[0], f.cells[1], f.cells[2], f.cells[3], Age(now, p.CreationTimestamp.Time)},
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
	if n := len(p.Spec.Containers); ready < 10 && n < 10 {
		i := 3 * (10*ready + n)
		return readyTable[i : i+3] // nearly every pod: a slice of a constant, no allocation
	}
	return strconv.Itoa(ready) + "/" + strconv.Itoa(len(p.Spec.Containers))
}

// readyTable holds "r/n" for r and n from 0 to 9, at 3(10r+n).
const readyTable = "0/00/10/20/30/40/50/60/70/80/91/01/11/21/31/41/51/61/71/81/92/02/12/22/32/42/52/62/72/82/93/03/13/23/33/43/53/63/73/83/94/04/14/24/34/44/54/64/74/84/95/05/15/25/35/45/55/65/75/85/96/06/16/26/36/46/56/66/76/86/97/07/17/27/37/47/57/67/77/87/98/08/18/28/38/48/58/68/78/88/99/09/19/29/39/49/59/69/79/89/9"

func ageSeconds(now, t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return now.Sub(t).Seconds()
}
