package model

import (
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/ui/render"
)

// World is the console's view of one moment: a snapshot joined with the journal, prices and the
// provisioner's last pass. It is immutable once built and safe to read from any goroutine.
type World struct {
	Now      time.Time
	Snapshot *state.Snapshot
	// Nodes are the snapshot's nodes with their usage and price, sorted by name.
	Nodes []*render.Node
	// Pools are the NodePools with their totals, sorted by name.
	Pools []render.NodePool
	// Claims are the NodeClaims with their prices, sorted by name.
	Claims []render.NodeClaim
	// Pending are the pending pods and why, sorted by namespace and name.
	Pending []render.Pending
	// Entries are the journal's entries, newest first.
	Entries []*journal.Entry
	// Zones are the availability zones of the nodes, sorted; a zone's index picks its color.
	Zones []string
	Fleet Fleet
	Skins []string
	Skin  string

	nodeByName map[string]*render.Node
	poolByName map[string]int
	entryBySeq map[uint64]*journal.Entry
	rows       map[Kind]*lazyRows
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
	w := &World{Now: in.Now, Snapshot: snap, Skins: in.Skins, Skin: in.Skin,
		nodeByName: make(map[string]*render.Node, len(snap.Nodes)), poolByName: map[string]int{}, entryBySeq: map[uint64]*journal.Entry{},
		rows: map[Kind]*lazyRows{}}
	for _, k := range []Kind{KindPending, KindNodePools, KindNodes, KindNodeClaims, KindPods, KindDecisions, KindInterruptions, KindEvents, KindSkins} {
		w.rows[k] = &lazyRows{}
	}
	w.Zones = zones(snap)
	var sources priceSources
	w.buildNodes(in, &sources)
	w.buildPools()
	w.buildClaims(in)
	w.Pending = pendingOf(snap, in.Provisioning)
	w.Entries = make([]*journal.Entry, len(in.Entries))
	for i := range in.Entries {
		e := &in.Entries[len(in.Entries)-1-i]
		w.Entries[i] = e
		w.entryBySeq[e.Seq] = e
	}
	w.Fleet.Nodes, w.Fleet.Pending = len(snap.Nodes), len(w.Pending)
	for _, p := range snap.Pods {
		if !pods.IsTerminal(p) {
			w.Fleet.Pods++
		}
	}
	sources.fill(&w.Fleet)
	return w
}

func zones(snap *state.Snapshot) []string {
	seen := map[string]bool{}
	for _, sn := range snap.Nodes {
		if z := sn.Labels()[corev1.LabelTopologyZone]; z != "" {
			seen[z] = true
		}
	}
	out := make([]string, 0, len(seen))
	for z := range seen {
		out = append(out, z)
	}
	slices.Sort(out)
	return out
}

// ZoneIndex is a zone's position among the World's zones, or 0.
func (w *World) ZoneIndex(zone string) int {
	i, _ := slices.BinarySearch(w.Zones, zone)
	return i
}

func (w *World) buildNodes(in Input, sources *priceSources) {
	w.Fleet.ByCapacityType = map[string]int{}
	w.Nodes = make([]*render.Node, len(w.Snapshot.Nodes))
	for i, sn := range w.Snapshot.Nodes {
		l := sn.Labels()
		n := &render.Node{State: sn, Name: sn.Name(), NodePool: sn.NodePool(), InstanceType: l[corev1.LabelInstanceTypeStable],
			CapacityType: l[karpv1.CapacityTypeLabelKey], Zone: l[corev1.LabelTopologyZone], Pods: len(sn.Pods)}
		n.ZoneIndex = w.ZoneIndex(n.Zone)
		n.CPUAlloc, n.MemAlloc = render.Resources(sn.Allocatable())
		n.CPUCapacity, n.MemCapacity = render.Resources(sn.Capacity())
		for _, p := range sn.Pods {
			cpu, mem := render.PodRequests(p)
			n.CPUReq, n.MemReq = n.CPUReq+cpu, n.MemReq+mem
		}
		if sn.Node != nil {
			n.Created = sn.Node.CreationTimestamp.Time
		} else {
			n.Created = sn.NodeClaim.CreationTimestamp.Time
		}
		if in.Price != nil {
			if p, ok := in.Price(sn); ok {
				n.PerHour, n.Priced = p.PerHour, true
				sources.add(p.Source)
			}
		}
		if in.WhyNot != nil {
			if e, ok := in.WhyNot(n.Name); ok {
				n.Blocked, n.BlockedMessage, n.BlockedUntil = e.Reason, e.Message, e.Until
			}
		}
		if n.Priced {
			w.Fleet.PerHour += n.PerHour
		} else {
			w.Fleet.Unpriced++
		}
		w.Fleet.ByCapacityType[n.CapacityType]++
		w.Nodes[i] = n
		w.nodeByName[n.Name] = n
	}
}

func (w *World) buildPools() {
	w.Pools = make([]render.NodePool, len(w.Snapshot.NodePools))
	for i, np := range w.Snapshot.NodePools {
		w.Pools[i] = render.NodePool{Pool: np}
		w.poolByName[np.Name] = i
	}
	for _, n := range w.Nodes {
		i, ok := w.poolByName[n.NodePool]
		if !ok || !n.State.Managed() {
			continue
		}
		p := &w.Pools[i]
		p.Nodes++
		p.CPU, p.Mem = p.CPU+n.CPUCapacity, p.Mem+n.MemCapacity
		p.PerHour += n.PerHour
	}
}

func (w *World) buildClaims(in Input) {
	w.Claims = make([]render.NodeClaim, len(w.Snapshot.NodeClaims))
	byClaim := make(map[string]*render.Node, len(w.Nodes))
	for _, n := range w.Nodes {
		if n.State.NodeClaim != nil {
			byClaim[n.State.NodeClaim.Name] = n
		}
	}
	for i, nc := range w.Snapshot.NodeClaims {
		c := render.NodeClaim{Claim: nc, ZoneIndex: w.ZoneIndex(nc.Labels[corev1.LabelTopologyZone])}
		if n := byClaim[nc.Name]; n != nil {
			c.PerHour, c.Priced = n.PerHour, n.Priced
		}
		w.Claims[i] = c
	}
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
	i, found := slices.BinarySearchFunc(w.Claims, name, func(c render.NodeClaim, n string) int { return strings.Compare(c.Claim.Name, n) })
	if !found {
		return render.NodeClaim{}, false
	}
	return w.Claims[i], true
}

// Entry returns a journal entry by sequence number, or nil.
func (w *World) Entry(seq uint64) *journal.Entry { return w.entryBySeq[seq] }

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
