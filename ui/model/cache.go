package model

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/ui/render"
	"github.com/nodepilot/nodepilot/usage"
)

// Cache hands what one World found about each pod and node to the next World. Objects in
// snapshots are never modified, so an unchanged pointer means unchanged facts: with 10,000 pods
// and a few changing, each World reads a few pods instead of all of them. Each World gets maps
// of its own (the Cache only remembers the last ones), so Worlds stay immutable. One builder
// owns a Cache; it is not safe for concurrent use.
type Cache struct {
	pods  map[*corev1.Pod]*podFacts
	nodes map[nodeKey]nodeFacts
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

// podFacts is what a World needs of a pod. Its figures hold its use in usageOf, the usage
// snapshot then current: a new snapshot (every 15 s) figures every pod's again. Facts are not
// changed once made, so Worlds share them (by pointer: a map of 10,000 large values would
// allocate each).
type podFacts struct {
	figures       render.PodFigures
	provisionable bool
	terminal      bool
	usageOf       *usage.Snapshot
}

func podFactsOf(p *corev1.Pod, u *usage.Snapshot) *podFacts {
	f := &podFacts{provisionable: pods.IsProvisionable(p), terminal: pods.IsTerminal(p)}
	f.figure(p, u)
	return f
}

// figure figures the pod's requests, and its use in u (on facts not yet shared).
func (f *podFacts) figure(p *corev1.Pod, u *usage.Snapshot) {
	cpu, mem := render.PodRequests(p)
	var used *usage.Use
	if u.Has() {
		if v, ok := u.Pods[pods.Key(p)]; ok {
			used = &v
		}
	}
	f.figures, f.usageOf = render.NewPodFigures(p.Namespace+"/"+p.Name, cpu, mem, used), u
}

// facts are the facts of every pod, read from the previous World where the pod is unchanged,
// with its use in u.
func (c *Cache) facts(ps []*corev1.Pod, u *usage.Snapshot) map[*corev1.Pod]*podFacts {
	out := make(map[*corev1.Pod]*podFacts, len(ps))
	var prev map[*corev1.Pod]*podFacts
	if c != nil {
		prev = c.pods
	}
	for _, p := range ps {
		f, ok := prev[p]
		switch {
		case !ok:
			f = podFactsOf(p, u)
		case f.usageOf != u:
			next := *f
			next.figure(p, u)
			f = &next
		}
		out[p] = f
	}
	if c != nil {
		c.pods = out
	}
	return out
}

// nodeKey identifies a node's objects; a node whose Node, NodeClaim or deletion mark changed is
// a new key.
type nodeKey struct {
	node   *corev1.Node
	claim  *karpv1.NodeClaim
	marked bool
}

// nodeFacts is what a World needs of a node's objects.
type nodeFacts struct {
	name, pool, instanceType, capacityType, zone string
	cpuAlloc, memAlloc, cpuCap, memCap           int64
	created                                      time.Time
	status                                       string
	tone                                         render.Tone
}

func nodeFactsOf(sn *state.Node) nodeFacts {
	l := sn.Labels()
	f := nodeFacts{name: sn.Name(), pool: sn.NodePool(), instanceType: l[corev1.LabelInstanceTypeStable],
		capacityType: l[karpv1.CapacityTypeLabelKey], zone: l[corev1.LabelTopologyZone]}
	f.cpuAlloc, f.memAlloc = render.Resources(sn.Allocatable())
	f.cpuCap, f.memCap = render.Resources(sn.Capacity())
	if sn.Node != nil {
		f.created = sn.Node.CreationTimestamp.Time
	} else {
		f.created = sn.NodeClaim.CreationTimestamp.Time
	}
	f.status, f.tone = render.NodeStatus(sn)
	return f
}

// nodeFacts are the facts of every node, in order, read from the previous World where the
// node's objects are unchanged.
func (c *Cache) nodeFacts(ns []*state.Node) []nodeFacts {
	out := make([]nodeFacts, len(ns))
	next := make(map[nodeKey]nodeFacts, len(ns))
	var prev map[nodeKey]nodeFacts
	if c != nil {
		prev = c.nodes
	}
	for i, sn := range ns {
		k := nodeKey{sn.Node, sn.NodeClaim, sn.MarkedForDeletion}
		f, ok := prev[k]
		if !ok {
			f = nodeFactsOf(sn)
		}
		out[i], next[k] = f, f
	}
	if c != nil {
		c.nodes = next
	}
	return out
}
