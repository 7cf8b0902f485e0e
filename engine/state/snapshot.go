package state

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/pods"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Snapshot is a consistent, immutable view of the cluster at one moment. Its objects are shared
// with the cluster state: never modify them.
type Snapshot struct {
	Time time.Time
	// Version changes with every change the cluster state hears of.
	Version uint64
	// ConsolidationVersion changes with every change but the pod and node updates that leave
	// all a consolidation decision reads as it was (podChangeMatters, nodeChangeMatters): on a
	// busy cluster pods' and nodes' status updates come every second, placements seldom.
	ConsolidationVersion uint64
	Synced               bool
	// Pods lists every pod, sorted by namespace and name.
	Pods []*corev1.Pod
	// Nodes joins each Node with its NodeClaim (by provider ID); a NodeClaim whose node has not
	// registered yet is a Node without Node. Sorted by name.
	Nodes      []*Node
	NodePools  []*karpv1.NodePool
	NodeClaims []*karpv1.NodeClaim
	// NodeClasses are the cloud provider's node classes, sorted by name.
	NodeClasses []NodeClass
	PDBs        []*policyv1.PodDisruptionBudget
	DaemonSets  []*appsv1.DaemonSet
	// Volumes tells where the volumes pods claim let them run.
	Volumes *Volumes
	// requests are Pods' requests, computed when the cluster state stored each pod, indexed by
	// pod on first use: snapshots that place no pod (the console's) do not pay for the index.
	requests *podRequests
}

// Node is a node as the engine sees it: the Node object, its NodeClaim, or both.
type Node struct {
	// Node is nil while a NodeClaim's node has not registered.
	Node *corev1.Node
	// NodeClaim is nil for nodes nodepilot does not manage.
	NodeClaim *karpv1.NodeClaim
	// Pods are the active pods bound to the node.
	Pods []*corev1.Pod
	// NominatedUntil is when the provisioner stops counting on the node for pods it placed.
	NominatedUntil time.Time
	// LastPodEvent is when a pod last arrived on or left the node (zero if never seen).
	LastPodEvent time.Time
	// MarkedForDeletion is set when the node is being deleted or a disruption command takes it.
	MarkedForDeletion bool
}

// Snapshot returns the current view. Every loop a change wakes asks for one: the view of a
// version is built once and shared (it is immutable), each caller getting its own Time.
func (c *Cluster) Snapshot() *Snapshot {
	c.mu.RLock()
	defer c.mu.RUnlock()
	// Under the read lock the version cannot change, so concurrent builders store the same view.
	s := c.last.Load()
	if s == nil || s.Version != c.version {
		s = c.build()
		c.last.Store(s)
	}
	out := *s
	out.Time = c.clock.Now()
	return &out
}

// build makes the view of the current version; the caller holds the lock.
func (c *Cluster) build() *Snapshot {
	s := &Snapshot{
		Version:              c.version,
		ConsolidationVersion: c.consolidation,
		NodePools:            sortedValues(c.nodePools, strings.Compare),
		NodeClaims:           sortedValues(c.nodeClaims, strings.Compare),
		NodeClasses:          sortedValues(c.nodeClasses, strings.Compare),
		PDBs:                 sortedValues(c.pdbs, compareNamespaced),
		DaemonSets:           sortedValues(c.daemonSets, compareNamespaced),
		Volumes:              c.volumesView(),
	}
	// Pods in order, and grouped by the node they count on, in the same order.
	s.Pods = make([]*corev1.Pod, len(c.podOrder))
	s.requests = &podRequests{pods: s.Pods, lists: make([]corev1.ResourceList, len(c.podOrder))}
	onNode := make(map[string][]*corev1.Pod, len(c.nodes))
	for i, e := range c.podOrder {
		s.Pods[i] = e.pod
		s.requests.lists[i] = e.requests
		if node := boundNode(e.pod); node != "" {
			onNode[node] = append(onNode[node], e.pod)
		}
	}
	s.Synced = true
	for _, k := range Kinds() {
		s.Synced = s.Synced && c.synced[k]
	}
	claimByProvider := map[string]*karpv1.NodeClaim{}
	for _, nc := range s.NodeClaims {
		if nc.Status.ProviderID != "" {
			claimByProvider[nc.Status.ProviderID] = nc
		}
	}
	joined := map[string]bool{}
	for _, n := range sortedValues(c.nodes, strings.Compare) {
		sn := &Node{Node: n, Pods: slices.Clip(onNode[n.Name]), LastPodEvent: c.lastPodEvent[n.Name], NominatedUntil: c.nominated[n.Name]}
		if nc := claimByProvider[n.Spec.ProviderID]; nc != nil && n.Spec.ProviderID != "" {
			sn.NodeClaim = nc
			joined[nc.Name] = true
			if t := c.nominated[nc.Name]; t.After(sn.NominatedUntil) {
				sn.NominatedUntil = t
			}
		}
		sn.MarkedForDeletion = n.DeletionTimestamp != nil || c.markedClaim(sn.NodeClaim)
		s.Nodes = append(s.Nodes, sn)
	}
	for _, nc := range s.NodeClaims {
		if !joined[nc.Name] {
			s.Nodes = append(s.Nodes, &Node{NodeClaim: nc, NominatedUntil: c.nominated[nc.Name], MarkedForDeletion: c.markedClaim(nc)})
		}
	}
	slices.SortFunc(s.Nodes, func(a, b *Node) int { return strings.Compare(a.Name(), b.Name()) })
	return s
}

func (c *Cluster) markedClaim(nc *karpv1.NodeClaim) bool {
	if nc == nil {
		return false
	}
	_, marked := c.marked[nc.Name]
	return marked || nc.DeletionTimestamp != nil
}

func compareNamespaced(a, b types.NamespacedName) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

// Name is the Node's name, or the NodeClaim's while the node has not registered.
func (n *Node) Name() string {
	if n.Node != nil {
		return n.Node.Name
	}
	return n.NodeClaim.Name
}

// Managed reports whether a NodeClaim stands behind the node.
func (n *Node) Managed() bool { return n.NodeClaim != nil }

// NodePool is the NodePool that launched the node, or "".
func (n *Node) NodePool() string { return n.Labels()[karpv1.NodePoolLabelKey] }

// Labels are the Node's labels, or the NodeClaim's before the node registers.
func (n *Node) Labels() map[string]string {
	if n.Node != nil {
		return n.Node.Labels
	}
	return n.NodeClaim.Labels
}

// Placement is the node's capacity type and zone, from its labels.
func (n *Node) Placement() (capacityType, zone string) {
	labels := n.Labels()
	return labels[karpv1.CapacityTypeLabelKey], labels[corev1.LabelTopologyZone]
}

// Taints are those that block scheduling now: the Node's, or, before it registers, the
// NodeClaim's taints (its startup taints will be gone by the time pods land).
func (n *Node) Taints() []corev1.Taint {
	if n.Node != nil {
		return n.Node.Spec.Taints
	}
	return n.NodeClaim.Spec.Taints
}

// Allocatable is the Node's allocatable, or the NodeClaim's estimate before it registers.
func (n *Node) Allocatable() corev1.ResourceList {
	if n.Node != nil && len(n.Node.Status.Allocatable) > 0 {
		return n.Node.Status.Allocatable
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.Status.Allocatable
	}
	return nil
}

// Capacity is the Node's capacity, or the NodeClaim's estimate before it registers.
func (n *Node) Capacity() corev1.ResourceList {
	if n.Node != nil && len(n.Node.Status.Capacity) > 0 {
		return n.Node.Status.Capacity
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.Status.Capacity
	}
	return nil
}

// PoolUsage is what a NodePool holds: its nodes (in-flight NodeClaims too) and the sum of their
// capacity, as Karpenter reports it (status.nodes and status.resources, karpenter_nodepools_usage).
type PoolUsage struct {
	Nodes    int64
	Capacity corev1.ResourceList
}

// UsageOf names the NodePool whose usage and limits the node counts toward, or "" when it counts
// toward none. As Karpenter's cluster state counts: the NodePool its karpenter.sh/nodepool label
// names, managed or not, unless the node is marked for deletion (being deleted, or taken by a
// disruption command), so that a replacement may launch while its candidate still runs.
func (n *Node) UsageOf() string {
	if n.MarkedForDeletion {
		return ""
	}
	return n.NodePool()
}

// PoolUsage sums, per NodePool, the nodes that count toward it (Node.UsageOf) and their capacity.
// It is the one count of a NodePool's usage: its status, its metric and the console read it.
func (s *Snapshot) PoolUsage() map[string]PoolUsage {
	out := map[string]PoolUsage{}
	for _, sn := range s.Nodes {
		pool := sn.UsageOf()
		if pool == "" {
			continue
		}
		u := out[pool]
		if u.Capacity == nil {
			u.Capacity = corev1.ResourceList{}
		}
		u.Nodes++
		for name, q := range sn.Capacity() {
			sum := u.Capacity[name]
			sum.Add(q)
			u.Capacity[name] = sum
		}
		out[pool] = u
	}
	return out
}

// Claims are a NodePool's NodeClaims (with their nodes) by where they stand, as Karpenter's
// NodePool state counts them for static NodePools and limits.nodes.
type Claims struct {
	// Running are neither deleting nor taken by a disruption command.
	Running []*Node
	// Disrupting are taken by a disruption command whose replacements are on the way.
	Disrupting []*Node
	// Deleting are being deleted.
	Deleting []*Node
}

// Total counts every NodeClaim of the NodePool, as limits.nodes does.
func (c Claims) Total() int { return len(c.Running) + len(c.Disrupting) + len(c.Deleting) }

// Room is how many more NodeClaims np's limits.nodes lets it create, counting all of these.
func (c Claims) Room(np *karpv1.NodePool) int64 {
	q, ok := np.Spec.Limits[karpv1.ResourceNodes]
	if !ok {
		return math.MaxInt64
	}
	return max(q.Value()-int64(c.Total()), 0)
}

// ClaimsOf sorts a NodePool's NodeClaims by where they stand.
func (s *Snapshot) ClaimsOf(pool string) Claims {
	var c Claims
	for _, sn := range s.Nodes {
		switch {
		case sn.NodeClaim == nil || sn.NodeClaim.Labels[karpv1.NodePoolLabelKey] != pool:
		case sn.Deleting():
			c.Deleting = append(c.Deleting, sn)
		case sn.MarkedForDeletion:
			c.Disrupting = append(c.Disrupting, sn)
		default:
			c.Running = append(c.Running, sn)
		}
	}
	return c
}

// Deleting reports whether the node or its NodeClaim is being deleted (termination drains it),
// as opposed to only marked by a disruption command.
func (n *Node) Deleting() bool {
	return (n.Node != nil && n.Node.DeletionTimestamp != nil) || (n.NodeClaim != nil && n.NodeClaim.DeletionTimestamp != nil)
}

// ProviderID is the cloud's ID for the machine, or "" before it launched.
func (n *Node) ProviderID() string {
	if n.Node != nil && n.Node.Spec.ProviderID != "" {
		return n.Node.Spec.ProviderID
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.Status.ProviderID
	}
	return ""
}

// Initialized reports whether the node is ready for pods: for a managed node, its NodeClaim is
// Initialized; for others, the Node is Ready.
func (n *Node) Initialized() bool {
	if n.NodeClaim != nil {
		return meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized)
	}
	return n.Ready()
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Ready reports whether the Node reports Ready (false before it registers).
func (n *Node) Ready() bool { return n.Node != nil && nodeReady(n.Node) }

// Nominated reports whether the provisioner counts on the node at t.
func (n *Node) Nominated(t time.Time) bool { return t.Before(n.NominatedUntil) }

// PendingPods are the pods the provisioner must find room for, sorted by namespace and name.
func (s *Snapshot) PendingPods() []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range s.Pods {
		if pods.IsProvisionable(p) {
			out = append(out, p)
		}
	}
	return out
}

// podRequests are a snapshot's pods' requests, lists[i] for pods[i] (the snapshot's Pods as
// built: the index never depends on which copy of the snapshot asks first), and by pod once asked.
type podRequests struct {
	pods  []*corev1.Pod
	lists []corev1.ResourceList
	once  sync.Once
	byPod map[*corev1.Pod]corev1.ResourceList
}

// Requests is what a pod requests (pods.Requests): kept from when the cluster state stored it
// for the snapshot's pods, computed for any other. The list is shared: never modify it.
func (s *Snapshot) Requests(p *corev1.Pod) corev1.ResourceList {
	if s.requests != nil {
		s.requests.once.Do(func() {
			s.requests.byPod = make(map[*corev1.Pod]corev1.ResourceList, len(s.requests.pods))
			for i, p := range s.requests.pods {
				s.requests.byPod[p] = s.requests.lists[i]
			}
		})
		if r, ok := s.requests.byPod[p]; ok {
			return r
		}
	}
	return pods.Requests(p)
}

// NodePool returns the named NodePool, or nil.
func (s *Snapshot) NodePool(name string) *karpv1.NodePool {
	i, found := slices.BinarySearchFunc(s.NodePools, name, func(np *karpv1.NodePool, n string) int { return strings.Compare(np.Name, n) })
	if !found {
		return nil
	}
	return s.NodePools[i]
}

// NodeClass returns the named node class, or nil.
func (s *Snapshot) NodeClass(name string) NodeClass {
	i, found := slices.BinarySearchFunc(s.NodeClasses, name, func(nc NodeClass, n string) int { return strings.Compare(nc.GetName(), n) })
	if !found {
		return nil
	}
	return s.NodeClasses[i]
}

// NodeByName returns the state node with this name, or nil.
func (s *Snapshot) NodeByName(name string) *Node {
	i, found := slices.BinarySearchFunc(s.Nodes, name, func(n *Node, x string) int { return strings.Compare(n.Name(), x) })
	if !found {
		return nil
	}
	return s.Nodes[i]
}
