package model

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/rightsizing"
	"github.com/nodepilot/nodepilot/ui/render"
	"github.com/nodepilot/nodepilot/usage"
)

// World is the console's view of one moment: a snapshot joined with the journal, prices and the
// provisioner's last pass. It is immutable once built (what it computes lazily, it computes
// once, under a sync.Once) and safe to read from any goroutine.
type World struct {
	Now      time.Time
	Snapshot *state.Snapshot
	// Nodes are the snapshot's nodes with their usage and price, sorted by name.
	Nodes []*render.Node
	// Pools are the NodePools with their totals, sorted by name.
	Pools []render.NodePool
	// Pending are the pending pods and why, sorted by namespace and name.
	Pending []render.Pending
	// Entries are the journal's entries, newest first.
	Entries []*journal.Entry
	// Zones are the availability zones of the nodes, sorted; a zone's index picks its color.
	Zones []string
	Fleet Fleet
	Skins []string
	Skin  string
	// Contexts are the kubeconfig's contexts, and Context the one the console is on.
	Contexts []string
	Context  string
	// Usage is what metrics.k8s.io says nodes and pods use (nil when nothing reads it).
	Usage *usage.Snapshot
	// RightSizing is the console's latest right-sizing, or nil.
	RightSizing *RightSizing
	// Trend is the fleet over the last TrendWindow, this World's figures last.
	Trend Trend

	budgets func(nodePool string) []disruption.Allowance

	pods       map[*corev1.Pod]*podFacts
	nodeByName map[string]*render.Node
	poolByName map[string]int
	rows       map[Kind]*lazyRows

	claimsOnce sync.Once
	claims     []render.NodeClaim
	entryOnce  sync.Once
	entryBySeq map[uint64]*journal.Entry
}

type lazyRows struct {
	once sync.Once
	rows []*render.Row
}

// New builds a World.
func New(in Input) *World {
	snap := in.Snapshot
	if snap == nil {
		snap = &state.Snapshot{Time: in.Now}
	}
	w := &World{Now: in.Now, Snapshot: snap, budgets: in.Budgets, Skins: in.Skins, Skin: in.Skin, Contexts: in.Contexts, Context: in.Context, Usage: in.Usage, RightSizing: in.RightSizing,
		nodeByName: make(map[string]*render.Node, len(snap.Nodes)), poolByName: map[string]int{}, rows: map[Kind]*lazyRows{}}
	for _, k := range []Kind{KindPending, KindNodePools, KindNodes, KindNodeClaims, KindPods, KindDecisions, KindInterruptions, KindEvents, KindSkins, KindContexts, KindRightSizing} {
		w.rows[k] = &lazyRows{}
	}
	w.pods = in.Cache.facts(snap.Pods, in.Usage)
	var pending []*corev1.Pod
	for _, p := range snap.Pods {
		f := w.pods[p]
		if f.provisionable {
			pending = append(pending, p)
		}
		if !f.terminal {
			w.Fleet.Pods++
		}
	}
	var sources priceSources
	fleet := w.buildNodes(in, in.Cache.nodeFacts(snap.Nodes), &sources)
	w.buildPools(fleet)
	w.Pending = pendingOf(pending, in.Provisioning)
	for i := range w.Pending {
		w.Pending[i].CPU, w.Pending[i].Mem = w.Requests(w.Pending[i].Pod)
	}
	es := in.Journal.Entries
	w.Entries = make([]*journal.Entry, len(es))
	for i := range es {
		w.Entries[i] = &es[len(es)-1-i]
	}
	w.Fleet.Nodes, w.Fleet.Pending = len(snap.Nodes), len(w.Pending)
	sources.fill(&w.Fleet)
	w.Trend = in.Trend.Record(in.Now, w.Fleet)
	return w
}

// Budgets are what a NodePool's budgets allow now, one per disruption reason, as the backend
// counts them; nil when it does not.
func (w *World) Budgets(nodePool string) []disruption.Allowance {
	if w.budgets == nil {
		return nil
	}
	return w.budgets(nodePool)
}

// ZoneIndex is a zone's position among the World's zones, or 0.
func (w *World) ZoneIndex(zone string) int {
	i, _ := slices.BinarySearch(w.Zones, zone)
	return i
}

// buildNodes makes the node rows and the fleet's totals, and returns what the nodes cost by
// NodePool.
func (w *World) buildNodes(in Input, facts []nodeFacts, sources *priceSources) cost.Fleet {
	seen := map[string]bool{}
	for _, f := range facts {
		if f.zone != "" && !seen[f.zone] {
			seen[f.zone] = true
			w.Zones = append(w.Zones, f.zone)
		}
	}
	slices.Sort(w.Zones)
	fleet := cost.NewFleet()
	w.Nodes = make([]*render.Node, len(w.Snapshot.Nodes))
	all := make([]render.Node, len(w.Snapshot.Nodes))
	for i, sn := range w.Snapshot.Nodes {
		f := facts[i]
		n := &all[i]
		*n = render.Node{State: sn, Name: f.name, NodePool: f.pool, InstanceType: f.instanceType, CapacityType: f.capacityType,
			Zone: f.zone, ZoneIndex: w.ZoneIndex(f.zone), Pods: len(sn.Pods), CPUAlloc: f.cpuAlloc, MemAlloc: f.memAlloc,
			CPUCapacity: f.cpuCap, MemCapacity: f.memCap, Created: f.created, Status: f.status, StatusTone: f.tone}
		for _, p := range sn.Pods {
			cpu, mem := w.Requests(p)
			n.CPUReq, n.MemReq = n.CPUReq+cpu, n.MemReq+mem
		}
		if w.Usage.Has() {
			n.Used, n.HasUse = w.Usage.Nodes[n.Name]
		}
		var price cost.Price
		if in.Price != nil {
			if price, n.Priced = in.Price(sn); n.Priced {
				n.PerHour = price.PerHour
				sources.add(price.Source)
			}
		}
		fleet.Add(sn, price, n.Priced)
		if e, ok := in.Journal.WhyNot(n.Name); ok {
			n.Blocked, n.BlockedMessage, n.BlockedUntil = e.Reason, e.Message, e.Until
		}
		w.Nodes[i] = n
		w.nodeByName[n.Name] = n
	}
	w.Fleet.PerHour, w.Fleet.Unpriced, w.Fleet.Synthetic = fleet.Total.PerHour, fleet.Total.Unpriced, fleet.Total.Synthetic
	w.Fleet.ByCapacityType = make(map[string]int, len(fleet.ByCapacityType))
	for capacityType, s := range fleet.ByCapacityType {
		w.Fleet.ByCapacityType[capacityType] = s.Nodes
	}
	return fleet
}

// buildPools totals each NodePool: its usage as its status counts it (Snapshot.PoolUsage), what
// its nodes cost and what they use.
func (w *World) buildPools(fleet cost.Fleet) {
	usage := w.Snapshot.PoolUsage()
	w.Pools = make([]render.NodePool, len(w.Snapshot.NodePools))
	for i, np := range w.Snapshot.NodePools {
		u := usage[np.Name]
		p := render.NodePool{Pool: np, Nodes: int(u.Nodes)}
		p.CPU, p.Mem = render.Resources(u.Capacity)
		if s := fleet.ByNodePool[np.Name]; s != nil {
			p.PerHour = s.PerHour
		}
		w.Pools[i] = p
		w.poolByName[np.Name] = i
	}
	for _, n := range w.Nodes {
		if i, ok := w.poolByName[n.NodePool]; ok && n.HasUse {
			p := &w.Pools[i]
			p.Used, p.HasUse = p.Used.Add(n.Used), true
		}
	}
}

// Claims are the NodeClaims with their prices, sorted by name.
func (w *World) Claims() []render.NodeClaim {
	w.claimsOnce.Do(func() {
		byClaim := make(map[string]*render.Node, len(w.Nodes))
		for _, n := range w.Nodes {
			if n.State.NodeClaim != nil {
				byClaim[n.State.NodeClaim.Name] = n
			}
		}
		w.claims = make([]render.NodeClaim, len(w.Snapshot.NodeClaims))
		for i, nc := range w.Snapshot.NodeClaims {
			c := render.NodeClaim{Claim: nc, ZoneIndex: w.ZoneIndex(nc.Labels[corev1.LabelTopologyZone])}
			if n := byClaim[nc.Name]; n != nil {
				c.PerHour, c.Priced = n.PerHour, n.Priced
			}
			w.claims[i] = c
		}
	})
	return w.claims
}

// Requests are a pod's CPU (millicores) and memory (bytes) requests.
func (w *World) Requests(p *corev1.Pod) (cpu, mem int64) {
	f := w.figures(p)
	return f.CPU, f.Mem
}

// PodRow renders a pod with its requests and use (one lookup of its facts: 10,000 rows).
func (w *World) PodRow(p *corev1.Pod) *render.Row { return render.PodRow(p, w.figures(p), w.Now) }

// figures are a pod's figures, from its facts.
func (w *World) figures(p *corev1.Pod) render.PodFigures {
	if f, ok := w.pods[p]; ok {
		return f.figures
	}
	return podFactsOf(p, w.Usage).figures
}

// UsageNote says why usage columns are empty or old, for the titles of the tables that show
// them; "" when the figures are fresh.
func (w *World) UsageNote() string {
	switch {
	case w.Usage == nil:
		return "usage: not read"
	case w.Usage.Status != "":
		return "usage: " + w.Usage.Status
	}
	return ""
}

// RightSizingNote sums the right-sizing up for its table's title: the planned fleet as
// requested and right-sized, or why there is none yet.
func (w *World) RightSizingNote() string {
	rs := w.RightSizing
	switch {
	case rs == nil || rs.Report == nil && rs.Err == nil:
		return "simulating..."
	case rs.Err != nil:
		return "right-sizing: " + rs.Err.Error()
	}
	r := rs.Report
	note := fmt.Sprintf("planned from nothing: %s/h on %s as requested, %s/h on %d right-sized, saves %s/h (%s/month)",
		render.Dollars(r.Before), render.Plural(r.NodesBefore, "node"), render.Dollars(r.After), r.NodesAfter, render.Dollars(r.Saving()), render.Monthly(r.Saving()))
	if r.Unsimulated > 0 {
		note += fmt.Sprintf("; %d workloads not simulated alone", r.Unsimulated)
	}
	if u := w.UsageNote(); u != "" {
		note += "; " + u
	}
	if rs.Busy {
		note += "; updating..."
	} else {
		note += "; " + render.Age(w.Now, rs.At) + " ago"
	}
	return note
}

// Workload returns a workload of the latest right-sizing by key (Key.String), or nil.
func (w *World) Workload(key string) *rightsizing.Workload {
	if w.RightSizing == nil || w.RightSizing.Report == nil {
		return nil
	}
	ws := w.RightSizing.Report.Workloads
	for i := range ws {
		if ws[i].Key.String() == key {
			return &ws[i]
		}
	}
	return nil
}

// Node returns a node by name, or nil.
func (w *World) Node(name string) *render.Node { return w.nodeByName[name] }

// Pool returns a NodePool with its totals by name.
func (w *World) Pool(name string) (render.NodePool, bool) {
	i, ok := w.poolByName[name]
	if !ok {
		return render.NodePool{}, false
	}
	return w.Pools[i], true
}

// Claim returns a NodeClaim with its price by name.
func (w *World) Claim(name string) (render.NodeClaim, bool) {
	claims := w.Claims()
	i, found := slices.BinarySearchFunc(claims, name, func(c render.NodeClaim, n string) int { return strings.Compare(c.Claim.Name, n) })
	if !found {
		return render.NodeClaim{}, false
	}
	return claims[i], true
}

// Entry returns a journal entry by sequence number, or nil.
func (w *World) Entry(seq uint64) *journal.Entry {
	w.entryOnce.Do(func() {
		w.entryBySeq = make(map[uint64]*journal.Entry, len(w.Entries))
		for _, e := range w.Entries {
			w.entryBySeq[e.Seq] = e
		}
	})
	return w.entryBySeq[seq]
}

// Pod returns a pod by namespace/name, or nil.
func (w *World) Pod(key string) *corev1.Pod {
	ns, name, _ := strings.Cut(key, "/")
	ps := w.Snapshot.Pods
	i, found := slices.BinarySearchFunc(ps, [2]string{ns, name}, func(p *corev1.Pod, k [2]string) int {
		if c := strings.Compare(p.Namespace, k[0]); c != 0 {
			return c
		}
		return strings.Compare(p.Name, k[1])
	})
	if !found {
		return nil
	}
	return ps[i]
}
