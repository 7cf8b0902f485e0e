package render

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Pending is a pending pod and what the provisioner last said of it.
type Pending struct {
	Pod *corev1.Pod
	// CPU (millicores) and Mem (bytes) are its requests.
	CPU, Mem int64
	// Why summarises the explainer's reasons ("default: InsufficientResources; gpu:
	// TaintNotTolerated"), or what the provisioner is doing about the pod.
	Why string
	// Fix is the first reason's hint.
	Fix string
	// Blocked is true when no NodePool can take the pod (Why is a refusal, not progress).
	Blocked bool
}

// PendingColumns are the columns of :pending.
func PendingColumns() []Column {
	return []Column{
		{Name: "NAMESPACE", Sort: 'S'},
		{Name: "NAME", Sort: 'N'},
		{Name: "CPU", Align: AlignRight, Sort: 'C', Numeric: true, DescFirst: true},
		{Name: "MEM", Align: AlignRight, Sort: 'M', Numeric: true, DescFirst: true},
		{Name: "AGE", Align: AlignRight, Sort: 'A', Numeric: true},
		{Name: "WHY", Sort: 'W', MaxWidth: 80},
		{Name: "FIX", MaxWidth: 60},
	}
}

// PendingRow renders a pending pod.
func PendingRow(p Pending, now time.Time) *Row {
	cpu, mem := p.CPU, p.Mem
	tone := ToneAdded
	if p.Blocked {
		tone = TonePending
	}
	fix := p.Fix
	if fix == "" {
		fix = None
	}
	return &Row{
		Key:    p.Pod.Namespace + "/" + p.Pod.Name,
		Cells:  []string{p.Pod.Namespace, p.Pod.Name, CPU(cpu), Mem(mem), Age(now, p.Pod.CreationTimestamp.Time), p.Why, fix},
		Nums:   []float64{2: float64(cpu), 3: float64(mem), 4: ageSeconds(now, p.Pod.CreationTimestamp.Time)},
		Tone:   tone,
		Labels: p.Pod.Labels,
		Ref:    p.Pod,
	}
}
