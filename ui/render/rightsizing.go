package render

import (
	"github.com/nodepilot/nodepilot/rightsizing"
)

// RightSizingColumns are the columns of :rightsizing: per pod of each workload, its requests,
// what it used (CPU at the high percentile, memory at its peak) and what it should request;
// the excess all its pods hold; what right-sizing it alone saves.
func RightSizingColumns() []Column {
	return []Column{
		{Name: "NAMESPACE", Sort: 'S'},
		{Name: "WORKLOAD", Sort: 'N'},
		{Name: "PODS", Align: AlignRight, Sort: 'O', Numeric: true, DescFirst: true},
		{Name: "CPU REQ", Align: AlignRight},
		{Name: "CPU USED", Align: AlignRight},
		{Name: "CPU FIT", Align: AlignRight},
		{Name: "MEM REQ", Align: AlignRight},
		{Name: "MEM USED", Align: AlignRight},
		{Name: "MEM FIT", Align: AlignRight},
		{Name: "EXCESS CPU", Align: AlignRight, Sort: 'U', Numeric: true, DescFirst: true},
		{Name: "EXCESS MEM", Align: AlignRight, Sort: 'M', Numeric: true, DescFirst: true},
		{Name: "SAVES $/H", Align: AlignRight, Sort: 'C', Numeric: true, DescFirst: true},
		{Name: "NOTE", MaxWidth: 48},
	}
}

// RightSizingRow renders one workload's right-sizing.
func RightSizingRow(w *rightsizing.Workload) *Row {
	req, used, fit, excess := w.Request(), w.Used(), w.Suggested(), w.Excess()
	cells := []string{w.Key.Namespace, w.Key.Kind + "/" + w.Key.Name, itoa(len(w.Pods)), CPU(req.CPU), None, None, Mem(req.Mem), None, None, None, None, None, w.Why}
	nums := make([]float64, len(cells))
	tones := make([]Tone, len(cells))
	nums[2] = float64(len(w.Pods))
	if w.Why == "" {
		cells[4], cells[5], cells[7], cells[8] = CPU(used.CPU), CPU(fit.CPU), Mem(used.Mem), Mem(fit.Mem)
		cells[9], cells[10] = signed(excess.CPU, CPU), signed(excess.Mem, Mem)
		nums[9], nums[10] = float64(excess.CPU), float64(excess.Mem)
		tones[9], tones[10] = excessTone(excess.CPU), excessTone(excess.Mem)
		if excess.CPU < 0 || excess.Mem < 0 {
			cells[12] = "uses more than it requests"
		}
	}
	if w.Simulated {
		cells[11], nums[11], tones[11] = Dollars(w.Saving), w.Saving, ToneCost
	} else if w.Changes() {
		cells[12] = "saving not simulated (time ran out)"
	}
	tone := ToneNormal
	if w.Why != "" {
		tone = ToneCompleted
	}
	return &Row{Key: w.Key.String(), Cells: cells, Nums: nums, Tone: tone, Tones: tones, Ref: w}
}

// signed prints an excess, with a minus when the requests are short of the use.
func signed(v int64, format func(int64) string) string {
	if v < 0 {
		return "-" + format(-v)
	}
	return format(v)
}

func excessTone(v int64) Tone {
	if v < 0 {
		return ToneWarning
	}
	return ToneInherit
}
