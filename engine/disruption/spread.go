package disruption

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// room is a node as kube-scheduler sees it when it places a pod: what is left of each resource
// (free, and pod slots), which its fit filter checks, and the CPU and memory its resource score
// weighs. free.other takes a copy before it changes: a spreadBase's rooms share theirs.
type room struct {
	taints           []corev1.Taint
	free             demand
	slots            float64
	allocCPU, allocM float64
	// leaving marks a candidate of the move: it takes no pod.
	leaving bool
}

func newRoom(taints []corev1.Taint, allocatable, requested corev1.ResourceList) room {
	free, slots := split(allocatable, requested)
	return room{taints: taints, free: free, slots: slots,
		allocCPU: allocatable.Cpu().AsApproximateFloat64(), allocM: allocatable.Memory().AsApproximateFloat64()}
}

// fits is kube-scheduler's fit filter: every resource the pod asks for, a pod slot included, is
// left. A node that does not report a resource has none of it.
func (r *room) fits(d demand) bool {
	if r.free.cpu < d.cpu || r.free.mem < d.mem || r.slots < 1 {
		return false
	}
	for res, q := range d.other {
		if r.free.other[res] < q {
			return false
		}
	}
	return true
}

func (r *room) take(d demand) {
	r.free.cpu, r.free.mem, r.slots = r.free.cpu-d.cpu, r.free.mem-d.mem, r.slots-1
	if len(d.other) > 0 {
		r.free.other = maps.Clone(r.free.other)
		if r.free.other == nil {
			r.free.other = map[corev1.ResourceName]float64{}
		}
		for res, q := range d.other {
			r.free.other[res] -= q
		}
	}
}

// leastAllocated is kube-scheduler's default resource score (NodeResourcesFit, LeastAllocated):
// the share of CPU and memory left free once the pod is placed, averaged. Its default profile
// weighs BalancedAllocation as much, which the check leaves out: where the test harness's
// scheduler adds it, TestConsolidationAfterTheWorkloadHalves's moves still leave no pod pending.
func (r *room) leastAllocated(d demand) float64 {
	score := 0.0
	if r.allocCPU > 0 {
		score += (r.free.cpu - d.cpu) / r.allocCPU
	}
	if r.allocM > 0 {
		score += (r.free.mem - d.mem) / r.allocM
	}
	return score / 2
}

// demand is an amount of each resource but pod slots: CPU, memory and, in other, the rest (nil
// when none). A pod's demand is what it takes from a node besides a slot.
type demand struct {
	cpu, mem float64
	other    map[corev1.ResourceName]float64
}

// split is l less less, resource by resource, with pod slots apart.
func split(l, less corev1.ResourceList) (d demand, slots float64) {
	for res, q := range l {
		taken := less[res]
		switch v := q.AsApproximateFloat64() - taken.AsApproximateFloat64(); res {
		case corev1.ResourceCPU:
			d.cpu = v
		case corev1.ResourceMemory:
			d.mem = v
		case corev1.ResourcePods:
			slots = v
		default:
			if d.other == nil {
				d.other = map[corev1.ResourceName]float64{}
			}
			d.other[res] = v
		}
	}
	return d, slots
}

// spreadable reports whether kube-scheduler may put a pod on any node whose taints it tolerates:
// it asks for no labels, no pod (anti-)affinity, no topology spread, no host port (in any
// container, init and sidecar containers included) and no persistent volume (which may hold it to
// a zone). Other pods go where the simulation put them.
func spreadable(p *corev1.Pod) bool {
	spec := p.Spec
	if len(spec.NodeSelector) > 0 || len(spec.TopologySpreadConstraints) > 0 || spec.Affinity != nil {
		return false
	}
	if pods.MountsClaim(p) {
		return false
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			for _, port := range c.Ports {
				if port.HostPort != 0 {
					return false
				}
			}
		}
	}
	return true
}

// spreadBase is every existing node's room before any move, and the pods' demands, built once
// per pass: a pass checks hundreds of moves over the same nodes, and each moves a few pods.
// requests gives a pod's requests (Snapshot.Requests keeps them).
type spreadBase struct {
	rooms    []room
	index    map[string]int
	demands  map[*corev1.Pod]demand
	requests func(*corev1.Pod) corev1.ResourceList
}

func newSpreadBase(nodes []scheduling.ExistingNode, requests func(*corev1.Pod) corev1.ResourceList) *spreadBase {
	b := &spreadBase{rooms: make([]room, len(nodes)), index: make(map[string]int, len(nodes)), demands: map[*corev1.Pod]demand{},
		requests: requests}
	for i, n := range nodes {
		b.rooms[i] = newRoom(n.Taints, n.Allocatable, n.Requested)
		b.index[n.Name] = i
	}
	return b
}

func (b *spreadBase) demandOf(p *corev1.Pod) demand {
	d, ok := b.demands[p]
	if !ok {
		d, _ = split(b.requests(p), nil)
		b.demands[p] = d
	}
	return d
}

// spreads checks that the moving pods still all find room when kube-scheduler, not the
// simulation, places them: its default scoring favours the least allocated node a pod fits, so
// the pods that land first fill the emptiest nodes (a replacement above all), and a large pod
// the simulation put in the one gap wide enough may find it taken. kube-scheduler takes
// pods as they arrive, and evicted pods come back in no order anyone controls (their workloads'
// controllers recreate them as they see them go), so the move must hold in several orders:
// smallest first, which leaves the large pods least room; largest first, where a large pod of
// one shape takes the gap another shape needs; and arrivalShuffles shuffled orders, seeded so
// that a decision comes out the same each time. Karpenter's simulation packs pods and does not
// look: its users see the move, then a new node for a pod left pending, then the move again
// (kubernetes-sigs/karpenter#1019). The nodes leaving take no pod. It returns the first pod left
// without room, or nil, and leaves the base as it found it.
func (b *spreadBase) spreads(leaving []string, results *scheduling.Results, replacements []*scheduling.NodeClaim, moving map[*corev1.Pod]bool) *corev1.Pod {
	saved := map[int]room{}
	save := func(i int) {
		if _, ok := saved[i]; !ok {
			saved[i] = b.rooms[i]
		}
	}
	defer func() {
		for i, r := range saved {
			b.rooms[i] = r
		}
	}()
	for _, name := range leaving {
		if i, ok := b.index[name]; ok {
			save(i)
			b.rooms[i].leaving = true
		}
	}
	var queue []sized
	place := func(r *room, ps []*corev1.Pod) {
		for _, p := range ps {
			req := b.demandOf(p)
			if moving[p] && spreadable(p) {
				queue = append(queue, sized{p, req})
				continue
			}
			r.take(req)
		}
	}
	for _, en := range results.ExistingNodes {
		if i, ok := b.index[en.Name]; ok && !b.rooms[i].leaving {
			save(i)
			place(&b.rooms[i], en.Pods)
		}
	}
	added := make([]room, len(replacements))
	for i, nc := range replacements {
		added[i] = newRoom(nc.Taints, nc.InstanceType.Allocatable(), nc.DaemonSetOverhead)
		place(&added[i], nc.Pods)
	}
	if len(queue) == 0 {
		return nil
	}
	// Each order starts from the rooms as the pods that do not spread left them.
	settled := make(map[int]room, len(saved))
	for i := range saved {
		settled[i] = b.rooms[i]
	}
	fresh := slices.Clone(added)
	for order := range arrivalOrders(queue) {
		copy(added, fresh)
		pending := b.arrive(order, added, save)
		for i := range saved {
			if r, ok := settled[i]; ok {
				b.rooms[i] = r
			} else {
				b.rooms[i] = saved[i]
			}
		}
		if pending != nil {
			return pending
		}
	}
	return nil
}

// sized is a moving pod and what it takes from a node.
type sized struct {
	pod *corev1.Pod
	req demand
}

// arrivalShuffles is how many shuffled orders spreads tries besides smallest and largest first.
const arrivalShuffles = 2

// arrivalOrders yields the orders spreads checks: queue smallest first, largest first, then
// shuffled. Each is a new slice; queue keeps its order.
func arrivalOrders(queue []sized) iter.Seq[[]sized] {
	return func(yield func([]sized) bool) {
		smallest := slices.Clone(queue)
		slices.SortStableFunc(smallest, func(a, b sized) int {
			return cmp.Or(cmp.Compare(a.req.cpu, b.req.cpu), cmp.Compare(a.req.mem, b.req.mem))
		})
		largest := slices.Clone(smallest)
		slices.Reverse(largest)
		if !yield(smallest) || len(queue) < 2 || !yield(largest) {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(len(queue)), 1))
		for range arrivalShuffles {
			order := slices.Clone(smallest)
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			if !yield(order) {
				return
			}
		}
	}
}

// arrive places the pods, in order, each on the least allocated room (an existing node, or one
// of added) that fits it and whose taints it tolerates, as kube-scheduler does; save is called
// with an existing room's index before it changes. It returns the first pod that finds none.
func (b *spreadBase) arrive(order []sized, added []room, save func(int)) *corev1.Pod {
	for _, q := range order {
		var best *room
		bestIndex, bestScore := -1, 0.0
		consider := func(r *room, i int) {
			if r.leaving || !r.fits(q.req) {
				return
			}
			if s := r.leastAllocated(q.req); (best == nil || s > bestScore) && pods.UntoleratedTaint(q.pod.Spec.Tolerations, r.taints, pods.Repels) == nil {
				best, bestIndex, bestScore = r, i, s
			}
		}
		for i := range b.rooms {
			consider(&b.rooms[i], i)
		}
		for i := range added {
			consider(&added[i], -1)
		}
		if best == nil {
			return q.pod
		}
		if bestIndex >= 0 {
			save(bestIndex)
		}
		best.take(q.req)
	}
	return nil
}

// cpuMem is a resource list's CPU in millicores and memory in bytes.
func cpuMem(rl corev1.ResourceList) (cpu, mem float64) {
	return float64(rl.Cpu().MilliValue()), float64(rl.Memory().Value())
}

// spreadBlock says why a move that the simulation packs would leave a pod pending.
func spreadBlock(p *corev1.Pod) *block {
	cpu, mem := cpuMem(pods.Requests(p))
	return &block{reason: BlockedPodsCannotMove, message: fmt.Sprintf(
		"pod %s/%s (%.0fm CPU, %.1f GiB) could be left pending: kube-scheduler favours the least allocated node, and if the evicted pods come back in some orders it would find no node with room",
		p.Namespace, p.Name, cpu, mem/(1<<30))}
}
