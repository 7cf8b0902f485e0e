package disruption

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// room is a node as kube-scheduler's resource scoring sees it: what pods may request, and what
// they request now.
type room struct {
	name             string
	taints           []corev1.Taint
	allocCPU, allocM float64
	usedCPU, usedM   float64
}

func (r *room) fits(cpu, mem float64) bool {
	return r.usedCPU+cpu <= r.allocCPU && r.usedM+mem <= r.allocM
}

// leastAllocated is kube-scheduler's default resource score (NodeResourcesFit, LeastAllocated):
// the share of CPU and memory left free once the pod is placed, averaged.
func (r *room) leastAllocated(cpu, mem float64) float64 {
	score := 0.0
	if r.allocCPU > 0 {
		score += (r.allocCPU - r.usedCPU - cpu) / r.allocCPU
	}
	if r.allocM > 0 {
		score += (r.allocM - r.usedM - mem) / r.allocM
	}
	return score / 2
}

// spreadable reports whether kube-scheduler may put a pod on any node whose taints it tolerates:
// it asks for no labels, no pod (anti-)affinity, no topology spread and no host port. Other pods
// go where the simulation put them.
func spreadable(p *corev1.Pod) bool {
	spec := p.Spec
	if len(spec.NodeSelector) > 0 || len(spec.TopologySpreadConstraints) > 0 || spec.Affinity != nil {
		return false
	}
	for _, c := range spec.Containers {
		for _, port := range c.Ports {
			if port.HostPort != 0 {
				return false
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
		r := &room{name: n.Name, taints: n.Taints}
		r.allocCPU, r.allocM = cpuMem(n.Allocatable)
		r.usedCPU, r.usedM = cpuMem(n.Requested)
		rooms = append(rooms, r)
		byName[n.Name] = r
	}
	var spread []*corev1.Pod
	place := func(r *room, ps []*corev1.Pod) {
		for _, p := range ps {
			if moving[p] && spreadable(p) {
				spread = append(spread, p)
				continue
			}
			cpu, mem := cpuMem(pods.Requests(p))
			r.usedCPU, r.usedM = r.usedCPU+cpu, r.usedM+mem
		}
	}
	for _, en := range results.ExistingNodes {
		if r := byName[en.Name]; r != nil {
			place(r, en.Pods)
		}
	}
	for _, nc := range replacements {
		r := &room{name: nc.Hostname, taints: nc.Taints}
		r.allocCPU, r.allocM = cpuMem(nc.InstanceType.Allocatable())
		r.usedCPU, r.usedM = cpuMem(nc.DaemonSetOverhead)
		rooms = append(rooms, r)
		place(r, nc.Pods)
	}
	type sized struct {
		pod      *corev1.Pod
		cpu, mem float64
	}
	queue := make([]sized, len(spread))
	for i, p := range spread {
		cpu, mem := cpuMem(pods.Requests(p))
		queue[i] = sized{p, cpu, mem}
	}
	slices.SortStableFunc(queue, func(a, b sized) int { return cmp.Or(cmp.Compare(a.cpu, b.cpu), cmp.Compare(a.mem, b.mem)) })
	for _, q := range queue {
		var best *room
		bestScore := 0.0
		for _, r := range rooms {
			if !r.fits(q.cpu, q.mem) || pods.UntoleratedTaint(q.pod.Spec.Tolerations, r.taints, pods.Repels) != nil {
				continue
			}
			if s := r.leastAllocated(q.cpu, q.mem); best == nil || s > bestScore {
				best, bestScore = r, s
			}
		}
		if best == nil {
			return q.pod
		}
		best.usedCPU, best.usedM = best.usedCPU+q.cpu, best.usedM+q.mem
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
