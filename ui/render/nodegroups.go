package render

import "github.com/nodepilot/nodepilot/usage"

// GroupNodes is the Grouper of :nodes: nodes by capacity type, then zone, each group headed by
// a row with its subtotals (count, pods, CPU and memory requested against allocatable, $/h). The
// order within a zone is the table's sort; groups come in name order.
func GroupNodes(rows []*Row) []*Row {
	type zone struct {
		name  string
		rows  []*Row
		index int
	}
	type capacity struct {
		name  string
		zones []*zone
		byZ   map[string]*zone
	}
	var caps []*capacity
	byCap := map[string]*capacity{}
	for _, r := range rows {
		n, ok := r.Ref.(*Node)
		if !ok {
			continue
		}
		c := byCap[n.CapacityType]
		if c == nil {
			c = &capacity{name: n.CapacityType, byZ: map[string]*zone{}}
			byCap[n.CapacityType] = c
			caps = append(caps, c)
		}
		z := c.byZ[n.Zone]
		if z == nil {
			z = &zone{name: n.Zone, index: n.ZoneIndex}
			c.byZ[n.Zone] = z
			c.zones = append(c.zones, z)
		}
		z.rows = append(z.rows, r)
	}
	sortBy(caps, func(c *capacity) string { return c.name })
	out := make([]*Row, 0, len(rows)+4*len(caps))
	for _, c := range caps {
		sortBy(c.zones, func(z *zone) string { return z.name })
		var all []*Row
		for _, z := range c.zones {
			all = append(all, z.rows...)
		}
		head := subtotal(LevelGroup, "cap:"+c.name, orNone(c.name), all)
		head.Tones[NodeColName] = CapacityTone(c.name)
		out = append(out, head)
		for _, z := range c.zones {
			sub := subtotal(LevelSubgroup, "cap:"+c.name+"/zone:"+z.name, "  "+orNone(z.name), z.rows)
			if z.name != "" {
				sub.Tones[NodeColName] = Zone(z.index)
			}
			out = append(out, sub)
			out = append(out, z.rows...)
		}
	}
	return out
}

// subtotal is a group header: its label, node count, and summed usage and price.
func subtotal(level Level, key, label string, rows []*Row) *Row {
	var pods int
	var cpuReq, cpuAlloc, memReq, memAlloc int64
	var price float64
	var used usage.Use
	priced, hasUse := false, false
	for _, r := range rows {
		n := r.Ref.(*Node)
		pods += n.Pods
		if n.HasUse {
			used, hasUse = used.Add(n.Used), true
		}
		cpuReq, cpuAlloc, memReq, memAlloc = cpuReq+n.CPUReq, cpuAlloc+n.CPUAlloc, memReq+n.MemReq, memAlloc+n.MemAlloc
		if n.Priced {
			price += n.PerHour
			priced = true
		}
	}
	cells := make([]string, NodeColAge+1)
	nums := make([]float64, NodeColAge+1)
	tones := make([]Tone, NodeColAge+1)
	cells[NodeColName] = label
	cells[NodeColType] = Plural(len(rows), "node")
	fillUsage(cells, nums, pods, cpuReq, cpuAlloc, memReq, memAlloc)
	fillUsed(cells, nums, tones, used, hasUse, cpuReq, cpuAlloc, memReq, memAlloc)
	cells[NodeColPrice] = None
	if priced {
		cells[NodeColPrice] = Dollars(price)
		nums[NodeColPrice] = price
	}
	return &Row{Key: key, Cells: cells, Nums: nums, Tone: ToneHighlight, Tones: tones, Level: level}
}
