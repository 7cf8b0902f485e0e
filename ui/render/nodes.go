package render

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/usage"
)

// Node is a node with what the console computed about it.
type Node struct {
	State                              *state.Node
	Name, NodePool, InstanceType       string
	CapacityType, Zone                 string
	ZoneIndex                          int
	Pods                               int
	CPUReq, CPUAlloc, MemReq, MemAlloc int64
	CPUCapacity, MemCapacity           int64
	// Used is what metrics.k8s.io says the node uses, when HasUse.
	Used    usage.Use
	HasUse  bool
	PerHour float64
	Priced  bool
	Created time.Time
	// Blocked is the reason code the journal keeps for why the node is not disrupted ("" when
	// nothing blocks it), and BlockedUntil when that ends, if known.
	Blocked        journal.Reason
	BlockedMessage string
	BlockedUntil   time.Time
	// Status is the node's state in a word and StatusTone its tone (NodeStatus when empty).
	Status     string
	StatusTone Tone
}

// NodeColumns are the columns of :nodes.
func NodeColumns() []Column {
	return []Column{
		{Name: "NAME", Sort: 'N'},
		{Name: "TYPE", Sort: 'T'},
		{Name: "NODEPOOL", Sort: 'P'},
		{Name: "CAPACITY", Sort: 'Y'},
		{Name: "ZONE", Sort: 'Z'},
		{Name: "PODS", Align: AlignRight, Sort: 'O', Numeric: true, DescFirst: true},
		{Name: "CPU", Align: AlignRight},
		{Name: "CPU%", Align: AlignRight, Sort: 'U', Numeric: true, DescFirst: true},
		{Name: "MEM", Align: AlignRight},
		{Name: "MEM%", Align: AlignRight, Sort: 'M', Numeric: true, DescFirst: true},
		{Name: "$/H", Align: AlignRight, Sort: 'C', Numeric: true, DescFirst: true},
		{Name: "STATUS", Sort: 'S'},
		{Name: "CPU BAR"},
		{Name: "MEM BAR"},
		{Name: "CPU USED", Align: AlignRight, Sort: 'E', Numeric: true, DescFirst: true},
		{Name: "MEM USED", Align: AlignRight, Sort: 'F', Numeric: true, DescFirst: true},
		{Name: "DISRUPTION", MaxWidth: 40},
		{Name: "AGE", Align: AlignRight, Sort: 'A', Numeric: true},
	}
}

// Node column indexes used by grouping and by the dashboard.
const (
	NodeColName = iota
	NodeColType
	NodeColNodePool
	NodeColCapacity
	NodeColZone
	NodeColPods
	NodeColCPU
	NodeColCPUPct
	NodeColMem
	NodeColMemPct
	NodeColPrice
	NodeColStatus
	NodeColCPUBar
	NodeColMemBar
	NodeColCPUUsed
	NodeColMemUsed
	NodeColDisruption
	NodeColAge
)

// NodeRow renders a node.
func NodeRow(n *Node, now time.Time) *Row {
	status, tone := n.Status, n.StatusTone
	if status == "" {
		status, tone = NodeStatus(n.State)
	}
	cells := make([]string, NodeColAge+1)
	nums := make([]float64, NodeColAge+1)
	tones := make([]Tone, NodeColAge+1)
	cells[NodeColName] = n.Name
	cells[NodeColType] = orNone(n.InstanceType)
	cells[NodeColNodePool] = orNone(n.NodePool)
	cells[NodeColCapacity] = orNone(n.CapacityType)
	tones[NodeColCapacity] = CapacityTone(n.CapacityType)
	cells[NodeColZone] = orNone(n.Zone)
	if n.Zone != "" {
		tones[NodeColZone] = Zone(n.ZoneIndex)
	}
	fillUsage(cells, nums, n.Pods, n.CPUReq, n.CPUAlloc, n.MemReq, n.MemAlloc)
	fillUsed(cells, nums, tones, n.Used, n.HasUse, n.CPUReq, n.CPUAlloc, n.MemReq, n.MemAlloc)
	if n.Priced {
		cells[NodeColPrice] = Dollars(n.PerHour)
		nums[NodeColPrice] = n.PerHour
		tones[NodeColPrice] = ToneCost
	} else {
		cells[NodeColPrice] = None
	}
	cells[NodeColStatus] = status
	cells[NodeColDisruption] = blocker(n, now)
	if n.Blocked != "" {
		tones[NodeColDisruption] = ToneBlocked
	}
	cells[NodeColAge] = Age(now, n.Created)
	nums[NodeColAge] = ageSeconds(now, n.Created)
	return &Row{Key: n.Name, Cells: cells, Nums: nums, Tone: tone, Tones: tones, Labels: n.State.Labels(), Ref: n}
}

func fillUsage(cells []string, nums []float64, pods int, cpuReq, cpuAlloc, memReq, memAlloc int64) {
	cells[NodeColPods] = itoa(pods)
	nums[NodeColPods] = float64(pods)
	cells[NodeColCPU] = CPUOf(cpuReq, cpuAlloc)
	cells[NodeColCPUPct] = Percent(float64(cpuReq), float64(cpuAlloc))
	nums[NodeColCPUPct] = Ratio(float64(cpuReq), float64(cpuAlloc))
	cells[NodeColMem] = MemOf(memReq, memAlloc)
	cells[NodeColMemPct] = Percent(float64(memReq), float64(memAlloc))
	nums[NodeColMemPct] = Ratio(float64(memReq), float64(memAlloc))
}

// fillUsed writes what metrics.k8s.io says is used against allocatable, and the bars of
// requested and used.
func fillUsed(cells []string, nums []float64, tones []Tone, used usage.Use, has bool, cpuReq, cpuAlloc, memReq, memAlloc int64) {
	cells[NodeColCPUUsed] = UsedOf(used.CPU, cpuAlloc, has, appendCPU)
	nums[NodeColCPUUsed] = Ratio(float64(used.CPU), float64(cpuAlloc))
	cells[NodeColMemUsed] = UsedOf(used.Mem, memAlloc, has, appendMem)
	nums[NodeColMemUsed] = Ratio(float64(used.Mem), float64(memAlloc))
	cpuR, cpuU := Ratio(float64(cpuReq), float64(cpuAlloc)), nums[NodeColCPUUsed]
	memR, memU := Ratio(float64(memReq), float64(memAlloc)), nums[NodeColMemUsed]
	cells[NodeColCPUBar], tones[NodeColCPUBar] = Bar(cpuR, cpuU, has, BarWidth), BarTone(cpuR, cpuU, has)
	cells[NodeColMemBar], tones[NodeColMemBar] = Bar(memR, memU, has, BarWidth), BarTone(memR, memU, has)
}

func blocker(n *Node, now time.Time) string {
	if n.Blocked == "" {
		return ""
	}
	if n.BlockedUntil.IsZero() || !n.BlockedUntil.After(now) {
		return string(n.Blocked)
	}
	return string(n.Blocked) + " " + Countdown(now, n.BlockedUntil)
}

// NodeStatus is a node's state in a word, and its tone.
func NodeStatus(sn *state.Node) (string, Tone) {
	switch {
	case sn.Node == nil:
		return "Launching", ToneAdded
	case sn.Node.DeletionTimestamp != nil:
		return "Terminating", ToneKill
	case sn.MarkedForDeletion:
		return "Disrupting", ToneKill
	case !nodeReady(sn.Node):
		return "NotReady", ToneError
	case sn.Node.Spec.Unschedulable:
		return "Cordoned", ToneModified
	case sn.Managed() && !sn.Initialized():
		return "Initializing", ToneAdded
	}
	return "Ready", ToneNormal
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// CapacityTone is the tone of a capacity type.
func CapacityTone(capacityType string) Tone {
	switch capacityType {
	case "spot":
		return ToneSpot
	case "on-demand":
		return ToneOnDemand
	}
	return ToneInherit
}

func orNone(s string) string {
	if s == "" {
		return None
	}
	return s
}
