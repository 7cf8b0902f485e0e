package disruption

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// room is a node as kube-scheduler sees it when it places a pod: what is left of each resource
// (pod slots included), which its fit filter checks, and the CPU and memory its resource score
// weighs.
type room struct {
	name             string
	taints           []corev1.Taint
	free             map[corev1.ResourceName]float64
	allocCPU, allocM float64
}

func newRoom(name string, taints []corev1.Taint, allocatable, requested corev1.ResourceList) *room {
	r := &room{name: name, taints: taints, free: make(map[corev1.ResourceName]float64, len(allocatable))}
	for res, q := range allocatable {
		used := requested[res]
		r.free[res] = q.AsApproximateFloat64() - used.AsApproximateFloat64()
	}
	r.allocCPU, r.allocM = allocatable.Cpu().AsApproximateFloat64(), allocatable.Memory().AsApproximateFloat64()
	return r
}

// fits is kube-scheduler's fit filter: every resource the pod asks for, a pod slot included, is
// left. A node that does not report a resource has none of it.
func (r *room) fits(req demand) bool {
	for res, q := range req {
		if r.free[res] < q {
			return false
		}
	}
	return true
}

func (r *room) take(req demand) {
	for res, q := range req {
		r.free[res] -= q
	}
}

// leastAllocated is kube-scheduler's default resource score (NodeResourcesFit, LeastAllocated):
// the share of CPU and memory left free once the pod is placed, averaged.
func (r *room) leastAllocated(req demand) float64 {
	score := 0.0
	if r.allocCPU > 0 {
		score += (r.free[corev1.ResourceCPU] - req[corev1.ResourceCPU]) / r.allocCPU
	}
	if r.allocM > 0 {
		score += (r.free[corev1.ResourceMemory] - req[corev1.ResourceMemory]) / r.allocM
	}
	return score / 2
}

// demand is what a pod takes from a node, a pod slot included.
type demand map[corev1.ResourceName]float64

func demandOf(p *corev1.Pod) demand {
	req := pods.Requests(p)
	d := make(demand, len(req)+1)
	for res, q := range req {
		d[res] = q.AsApproximateFloat64()
	}
	d[corev1.ResourcePods]++
	return d
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
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return false
		}
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

// spreads checks that the moving pods still all find room when kube-scheduler, not the
// simulation, places them: its default scoring puts each pod on the least allocated node it
// fits, so the pods that land first fill the emptiest nodes (a replacement above all), and a
// large pod the simulation put in the one gap wide enough may find it taken. Pods are taken
// smallest first, the order that leaves the large ones least room: a move that holds then is
// not undone by the scheduler. Karpenter's simulation packs pods and does not look: its users
// see the move, then a new node for a pod left pending, then the move again (kubernetes-sigs/
// karpenter#1019). It returns the first pod left without room, or nil.
func spreads(nodes []scheduling.ExistingNode, results *scheduling.Results, replacements []*scheduling.NodeClaim, moving map[*corev1.Pod]bool) *corev1.Pod {
	rooms := make([]*room, 0, len(nodes)+len(replacements))
	byName := make(map[string]*room, len(nodes))
	for _, n := range nodes {
		r := newRoom(n.Name, n.Taints, n.Allocatable, n.Requested)
		rooms = append(rooms, r)
		byName[n.Name] = r
	}
	type sized struct {
		pod *corev1.Pod
		req demand
	}
	var queue []sized
	place := func(r *room, ps []*corev1.Pod) {
		for _, p := range ps {
			req := demandOf(p)
			if moving[p] && spreadable(p) {
				queue = append(queue, sized{p, req})
				continue
			}
			r.take(req)
		}
	}
	for _, en := range results.ExistingNodes {
		if r := byName[en.Name]; r != nil {
			place(r, en.Pods)
		}
	}
	for _, nc := range replacements {
		r := newRoom(nc.Hostname, nc.Taints, nc.InstanceType.Allocatable(), nc.DaemonSetOverhead)
		rooms = append(rooms, r)
		place(r, nc.Pods)
	}
	cpu, mem := corev1.ResourceCPU, corev1.ResourceMemory
	slices.SortStableFunc(queue, func(a, b sized) int {
		return cmp.Or(cmp.Compare(a.req[cpu], b.req[cpu]), cmp.Compare(a.req[mem], b.req[mem]))
	})
	for _, q := range queue {
		var best *room
		bestScore := 0.0
		for _, r := range rooms {
			if !r.fits(q.req) || pods.UntoleratedTaint(q.pod.Spec.Tolerations, r.taints, pods.Repels) != nil {
				continue
			}
			if s := r.leastAllocated(q.req); best == nil || s > bestScore {
				best, bestScore = r, s
			}
		}
		if best == nil {
			return q.pod
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
		"pod %s/%s (%.0fm CPU, %.1f GiB) would be left pending: kube-scheduler puts each pod on the least allocated node, and once the smaller pods moved it would find no node with room",
		p.Namespace, p.Name, cpu, mem/(1<<30))}
}
