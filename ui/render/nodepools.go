package render

import (
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/usage"
)

// NodePool is a NodePool with the totals of its nodes.
type NodePool struct {
	Pool  *karpv1.NodePool
	Nodes int
	// CPU (millicores) and Mem (bytes) are the capacity of its nodes, what limits count.
	CPU, Mem int64
	// Used is what its nodes use by metrics.k8s.io, when HasUse (some node has a figure).
	Used    usage.Use
	HasUse  bool
	PerHour float64
}

// NodePoolColumns are the columns of :nodepools.
func NodePoolColumns() []Column {
	return []Column{
		{Name: "NAME", Sort: 'N'},
		{Name: "WEIGHT", Align: AlignRight, Sort: 'W', Numeric: true, DescFirst: true},
		{Name: "NODES", Align: AlignRight, Sort: 'O', Numeric: true, DescFirst: true},
		{Name: "CPU", Align: AlignRight},
		{Name: "CPU%", Align: AlignRight, Sort: 'U', Numeric: true, DescFirst: true},
		{Name: "MEM", Align: AlignRight},
		{Name: "MEM%", Align: AlignRight, Sort: 'M', Numeric: true, DescFirst: true},
		{Name: "CPU LIMIT"},
		{Name: "MEM LIMIT"},
		{Name: "CPU USED", Align: AlignRight, Sort: 'E', Numeric: true, DescFirst: true},
		{Name: "MEM USED", Align: AlignRight, Sort: 'F', Numeric: true, DescFirst: true},
		{Name: "$/H", Align: AlignRight, Sort: 'C', Numeric: true, DescFirst: true},
		{Name: "$/MONTH", Align: AlignRight},
		{Name: "POLICY"},
		{Name: "AFTER", Align: AlignRight},
		{Name: "BUDGETS", MaxWidth: 40},
		{Name: "READY"},
		{Name: "AGE", Align: AlignRight, Sort: 'A', Numeric: true},
	}
}

// NodePool column indexes used by the dashboard.
const (
	NodePoolColName = iota
	NodePoolColWeight
	NodePoolColNodes
	NodePoolColCPU
	NodePoolColCPUPct
	NodePoolColMem
	NodePoolColMemPct
	NodePoolColCPUBar
	NodePoolColMemBar
	NodePoolColCPUUsed
	NodePoolColMemUsed
	NodePoolColPrice
	NodePoolColMonthly
	NodePoolColPolicy
	NodePoolColAfter
	NodePoolColBudgets
	NodePoolColReady
	NodePoolColAge
)

// NodePoolRow renders a NodePool.
func NodePoolRow(p NodePool, now time.Time) *Row {
	np := p.Pool
	cpuLimit, hasCPU := limit(np.Spec.Limits, corev1.ResourceCPU, true)
	memLimit, hasMem := limit(np.Spec.Limits, corev1.ResourceMemory, false)
	cells := make([]string, NodePoolColAge+1)
	nums := make([]float64, NodePoolColAge+1)
	tones := make([]Tone, NodePoolColAge+1)
	cells[NodePoolColName] = np.Name
	cells[NodePoolColWeight] = None
	if np.Spec.Weight != nil {
		cells[NodePoolColWeight] = strconv.Itoa(int(*np.Spec.Weight))
		nums[NodePoolColWeight] = float64(*np.Spec.Weight)
	}
	cells[NodePoolColNodes] = itoa(p.Nodes)
	nums[NodePoolColNodes] = float64(p.Nodes)
	cells[NodePoolColCPU], cells[NodePoolColCPUPct], nums[NodePoolColCPUPct] = againstLimit(p.CPU, cpuLimit, hasCPU, CPU)
	cells[NodePoolColMem], cells[NodePoolColMemPct], nums[NodePoolColMemPct] = againstLimit(p.Mem, memLimit, hasMem, Mem)
	tones[NodePoolColCPUPct] = limitTone(nums[NodePoolColCPUPct])
	tones[NodePoolColMemPct] = limitTone(nums[NodePoolColMemPct])
	cells[NodePoolColCPUBar], tones[NodePoolColCPUBar] = limitBar(nums[NodePoolColCPUPct], hasCPU)
	cells[NodePoolColMemBar], tones[NodePoolColMemBar] = limitBar(nums[NodePoolColMemPct], hasMem)
	cells[NodePoolColCPUUsed] = UsedOf(p.Used.CPU, p.CPU, p.HasUse, appendCPU)
	nums[NodePoolColCPUUsed] = Ratio(float64(p.Used.CPU), float64(p.CPU))
	cells[NodePoolColMemUsed] = UsedOf(p.Used.Mem, p.Mem, p.HasUse, appendMem)
	nums[NodePoolColMemUsed] = Ratio(float64(p.Used.Mem), float64(p.Mem))
	cells[NodePoolColPrice] = Dollars(p.PerHour)
	nums[NodePoolColPrice] = p.PerHour
	tones[NodePoolColPrice] = ToneCost
	cells[NodePoolColMonthly] = Monthly(p.PerHour)
	cells[NodePoolColPolicy] = orNone(string(np.Spec.Disruption.ConsolidationPolicy))
	cells[NodePoolColAfter] = after(np.Spec.Disruption.ConsolidateAfter)
	cells[NodePoolColBudgets] = Budgets(np.Spec.Disruption.Budgets)
	ready, tone := poolReady(np)
	cells[NodePoolColReady] = ready
	cells[NodePoolColAge] = Age(now, np.CreationTimestamp.Time)
	nums[NodePoolColAge] = ageSeconds(now, np.CreationTimestamp.Time)
	return &Row{Key: np.Name, Cells: cells, Nums: nums, Tone: tone, Tones: tones, Labels: np.Labels, Ref: np}
}

// limit reads one limit (millicores for CPU, bytes otherwise).
func limit(l karpv1.Limits, name corev1.ResourceName, milli bool) (int64, bool) {
	q, ok := l[name]
	if !ok {
		return 0, false
	}
	if milli {
		return q.MilliValue(), true
	}
	return q.Value(), true
}

// againstLimit prints what is used of a limit: the cell, the percentage cell and the ratio.
func againstLimit(used, limit int64, has bool, format func(int64) string) (string, string, float64) {
	if !has {
		return format(used) + "/∞", None, 0
	}
	r := Ratio(float64(used), float64(limit))
	return Of(used, limit, format), Percent(float64(used), float64(limit)), r
}

// limitBar is a bar of what a NodePool's nodes hold against one of its limits, or None without
// that limit.
func limitBar(ratio float64, has bool) (string, Tone) {
	if !has {
		return None, ToneInherit
	}
	return Bar(ratio, 0, false, BarWidth), limitTone(ratio)
}

func limitTone(ratio float64) Tone {
	switch {
	case ratio >= 1:
		return ToneCritical
	case ratio >= 0.9:
		return ToneWarning
	}
	return ToneInherit
}

func after(d karpv1.NillableDuration) string {
	if s := d.String(); s != "" {
		return s
	}
	return "0s"
}

// Budgets prints a NodePool's disruption budgets: "10%", "20%; 0 [Drifted] @0 9 * * 1-5 for 8h0m0s".
func Budgets(bs []karpv1.Budget) string {
	if len(bs) == 0 {
		return "10%"
	}
	parts := make([]string, len(bs))
	for i, b := range bs {
		s := b.Nodes
		if len(b.Reasons) > 0 {
			rs := make([]string, len(b.Reasons))
			for j, r := range b.Reasons {
				rs[j] = string(r)
			}
			s += " [" + strings.Join(rs, ",") + "]"
		}
		if b.Schedule != nil && b.Duration != nil {
			s += " @" + *b.Schedule + " for " + b.Duration.Duration.String()
		}
		parts[i] = s
	}
	return strings.Join(parts, "; ")
}

func poolReady(np *karpv1.NodePool) (string, Tone) {
	c := meta.FindStatusCondition(np.Status.Conditions, karpv1.ConditionTypeReady)
	switch {
	case c == nil:
		return "Unknown", ToneNormal
	case c.Status == "True":
		return "True", ToneNormal
	}
	return "False", ToneError
}
