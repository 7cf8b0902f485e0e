package state

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/pods"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Kinds the informers feed; the engine acts only once every one of them has synced.
const (
	KindPod       = "Pod"
	KindNode      = "Node"
	KindNodePool  = "NodePool"
	KindNodeClaim = "NodeClaim"
	// KindNodeClass is the cloud provider's node class (EC2NodeClass on AWS).
	KindNodeClass = "NodeClass"
	KindPDB       = "PodDisruptionBudget"
	KindDaemonSet = "DaemonSet"
	// KindVolumeAttachment and KindPVC tell which volumes a node's termination waits for.
	KindVolumeAttachment = "VolumeAttachment"
	KindPVC              = "PersistentVolumeClaim"
	// KindPV and KindStorageClass, with KindPVC, tell where the volumes a pod claims let it run.
	KindPV           = "PersistentVolume"
	KindStorageClass = "StorageClass"
)

// Kinds lists every kind the cluster state holds.
func Kinds() []string {
	return []string{KindPod, KindNode, KindNodePool, KindNodeClaim, KindNodeClass, KindPDB, KindDaemonSet, KindVolumeAttachment, KindPVC, KindPV, KindStorageClass}
}

// Cluster is the engine's view of a cluster, kept up to date by informers and read through
// immutable snapshots. Objects handed to it must not be changed afterwards (informer caches
// guarantee that); it never changes them either. It is safe for concurrent use.
type Cluster struct {
	clock clock.Clock

	mu          sync.RWMutex
	pods        map[types.NamespacedName]*corev1.Pod
	nodes       map[string]*corev1.Node
	nodePools   map[string]*karpv1.NodePool
	nodeClaims  map[string]*karpv1.NodeClaim
	nodeClasses map[string]NodeClass
	pdbs        map[types.NamespacedName]*policyv1.PodDisruptionBudget
	daemonSets  map[types.NamespacedName]*appsv1.DaemonSet
	attachments map[string]*storagev1.VolumeAttachment
	pvcs        map[types.NamespacedName]*corev1.PersistentVolumeClaim
	pvs         map[string]*corev1.PersistentVolume
	classes     map[string]*storagev1.StorageClass
	// volumes is the snapshots' view of pvcs, pvs and classes, nil after they change until a
	// snapshot builds it again (under the read lock, hence atomic).
	volumes atomic.Pointer[Volumes]
	// podOrder holds the pods sorted by key, kept as pods come, change and go, so that a
	// snapshot lists pods (and each node's) without sorting or looking them up again.
	podOrder []keyedPod
	// lastPodEvent is when a pod last arrived on or left each node.
	lastPodEvent map[string]time.Time
	// nominated holds, per node (or NodeClaim) name, until when the provisioner counts on it
	// for pods it placed there; disruption leaves such nodes alone.
	nominated map[string]time.Time
	// marked are the NodeClaims a disruption command is replacing or removing.
	marked map[string]struct{}
	// goneClaims are the NodeClaims deleted lately, and when (Expect).
	goneClaims map[string]time.Time
	// scheduling is what the provisioner has done about each pod it found provisionable.
	scheduling map[types.NamespacedName]PodScheduling
	synced     map[string]bool
	// unwatched says, per kind the identity may not read, why it is not watched.
	unwatched map[string]string
	version   uint64
	// consolidation is Snapshot.ConsolidationVersion: it counts the changes but pod and node
	// updates that leave all a consolidation decision reads as it was.
	consolidation uint64
	// last is the latest snapshot built, shared until the version changes.
	last atomic.Pointer[Snapshot]
	// provisioning counts the changes that may need new capacity: a pod becoming or staying
	// provisionable, a NodeClaim or NodePool going away or changing.
	provisioning uint64
	subs         []chan struct{}
}

// NewCluster returns an empty cluster state.
func NewCluster(c clock.Clock) *Cluster {
	return &Cluster{
		clock:        c,
		pods:         map[types.NamespacedName]*corev1.Pod{},
		nodes:        map[string]*corev1.Node{},
		nodePools:    map[string]*karpv1.NodePool{},
		nodeClaims:   map[string]*karpv1.NodeClaim{},
		nodeClasses:  map[string]NodeClass{},
		pdbs:         map[types.NamespacedName]*policyv1.PodDisruptionBudget{},
		daemonSets:   map[types.NamespacedName]*appsv1.DaemonSet{},
		attachments:  map[string]*storagev1.VolumeAttachment{},
		pvcs:         map[types.NamespacedName]*corev1.PersistentVolumeClaim{},
		pvs:          map[string]*corev1.PersistentVolume{},
		classes:      map[string]*storagev1.StorageClass{},
		lastPodEvent: map[string]time.Time{},
		nominated:    map[string]time.Time{},
		marked:       map[string]struct{}{},
		goneClaims:   map[string]time.Time{},
		scheduling:   map[types.NamespacedName]PodScheduling{},
		synced:       map[string]bool{},
		unwatched:    map[string]string{},
	}
}

// Subscribe returns a channel that receives a value (coalesced) after every change.
func (c *Cluster) Subscribe() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{}, 1)
	c.subs = append(c.subs, ch)
	return ch
}

// changed bumps the versions and wakes subscribers; the caller holds the lock.
func (c *Cluster) changed() {
	c.consolidation++
	c.refreshed()
}

// refreshed is changed for an update consolidation cannot see: it leaves ConsolidationVersion.
func (c *Cluster) refreshed() {
	c.version++
	for _, ch := range c.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// MarkSynced records that the informer for kind has delivered its initial list.
func (c *Cluster) MarkSynced(kind string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.synced[kind] = true
	c.changed()
}

// MarkUnwatched records that a kind the engine can do without cannot be read (the identity lacks
// the permission), and why; the kind counts as synced, empty.
func (c *Cluster) MarkUnwatched(kind, why string) {
	c.mu.Lock()
	c.unwatched[kind] = why
	c.volumes.Store(nil)
	c.mu.Unlock()
	c.MarkSynced(kind)
}

// Unwatched says why a kind is not watched, or "" when it is.
func (c *Cluster) Unwatched(kind string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.unwatched[kind]
}

// Synced reports whether every kind has synced.
func (c *Cluster) Synced() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, k := range Kinds() {
		if !c.synced[k] {
			return false
		}
	}
	return true
}

// UpdatePod stores a pod, moving it between nodes as its binding changes.
func (c *Cluster) UpdatePod(p *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := pods.Key(p)
	old := c.pods[key]
	c.pods[key] = p
	// Requests are computed once per write, not by every solve that reads the pod.
	e := keyedPod{key: key, pod: p, requests: pods.Requests(p)}
	if i, found := c.podIndex(key); found {
		c.podOrder[i] = e
	} else {
		c.podOrder = slices.Insert(c.podOrder, i, e)
	}
	if oldNode, newNode := boundNode(old), boundNode(p); oldNode != newNode {
		c.podMoved(oldNode)
		c.podMoved(newNode)
	}
	if pods.IsProvisionable(p) {
		c.provisioning++
	}
	if old != nil && !podChangeMatters(old, p) {
		c.refreshed()
		return
	}
	c.changed()
}

// ProvisioningVersion changes whenever something happened that may need new capacity: a pod
// became (or was re-marked) unschedulable, a NodeClaim was deleted, a NodePool changed.
func (c *Cluster) ProvisioningVersion() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.provisioning
}

// DeletePod forgets a pod.
func (c *Cluster) DeletePod(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.pods[key]; ok {
		c.podMoved(boundNode(old))
		delete(c.pods, key)
		if i, found := c.podIndex(key); found {
			c.podOrder = slices.Delete(c.podOrder, i, i+1)
		}
		delete(c.scheduling, key)
		c.changed()
	}
}

// boundNode is the node a pod counts on: its node while it is active, else none.
func boundNode(p *corev1.Pod) string {
	if p == nil || !pods.IsActive(p) {
		return ""
	}
	return p.Spec.NodeName
}

// keyedPod is a pod, its key and its requests (pods.Requests), an entry of Cluster.podOrder.
type keyedPod struct {
	key      types.NamespacedName
	pod      *corev1.Pod
	requests corev1.ResourceList
}

// podIndex finds key in podOrder, or where it belongs.
func (c *Cluster) podIndex(key types.NamespacedName) (int, bool) {
	return slices.BinarySearchFunc(c.podOrder, key, func(e keyedPod, k types.NamespacedName) int { return compareNamespaced(e.key, k) })
}

// podMoved records that a pod arrived on or left node.
func (c *Cluster) podMoved(node string) {
	if node != "" {
		c.lastPodEvent[node] = c.clock.Now()
	}
}

// UpdateNode stores a node.
func (c *Cluster) UpdateNode(n *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.nodes[n.Name]
	c.nodes[n.Name] = n
	if old != nil && !nodeChangeMatters(old, n) {
		c.refreshed()
		return
	}
	c.changed()
}

// DeleteNode forgets a node.
func (c *Cluster) DeleteNode(name string) {
	remove(c, c.nodes, name)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.lastPodEvent, name)
	delete(c.nominated, name)
}

// UpdateNodePool stores a NodePool.
func (c *Cluster) UpdateNodePool(np *karpv1.NodePool) {
	update(c, c.nodePools, np.Name, np)
	c.bumpProvisioning()
}

func (c *Cluster) bumpProvisioning() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.provisioning++
}

// DeleteNodePool forgets a NodePool.
func (c *Cluster) DeleteNodePool(name string) { remove(c, c.nodePools, name) }

// UpdateNodeClaim stores a NodeClaim.
func (c *Cluster) UpdateNodeClaim(nc *karpv1.NodeClaim) { update(c, c.nodeClaims, nc.Name, nc) }

// Expect stores a NodeClaim the engine has just created, unless the informer delivered it
// already, or its deletion too: a loop that counts NodeClaims then sees it before its watch event
// arrives, and does not create it twice; and one that came and went at once is not brought back
// for good, since no later event would remove it again.
func (c *Cluster) Expect(nc *karpv1.NodeClaim) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, known := c.nodeClaims[nc.Name]
	_, gone := c.goneClaims[nc.Name]
	if !known && !gone {
		c.nodeClaims[nc.Name] = nc
		c.changed()
	}
}

// goneFor is how long a deleted NodeClaim's name is remembered for Expect: far longer than a
// create takes to return.
const goneFor = 10 * time.Minute

// DeleteNodeClaim forgets a NodeClaim.
func (c *Cluster) DeleteNodeClaim(name string) {
	remove(c, c.nodeClaims, name)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.marked, name)
	delete(c.nominated, name)
	now := c.clock.Now()
	maps.DeleteFunc(c.goneClaims, func(_ string, at time.Time) bool { return now.Sub(at) > goneFor })
	c.goneClaims[name] = now
	c.provisioning++
}

// UpdateNodeClass stores a node class.
func (c *Cluster) UpdateNodeClass(nc NodeClass) { update(c, c.nodeClasses, nc.GetName(), nc) }

// DeleteNodeClass forgets a node class.
func (c *Cluster) DeleteNodeClass(name string) { remove(c, c.nodeClasses, name) }

// UpdatePDB stores a PodDisruptionBudget.
func (c *Cluster) UpdatePDB(pdb *policyv1.PodDisruptionBudget) {
	update(c, c.pdbs, types.NamespacedName{Namespace: pdb.Namespace, Name: pdb.Name}, pdb)
}

// DeletePDB forgets a PodDisruptionBudget.
func (c *Cluster) DeletePDB(key types.NamespacedName) { remove(c, c.pdbs, key) }

// UpdateDaemonSet stores a DaemonSet.
func (c *Cluster) UpdateDaemonSet(ds *appsv1.DaemonSet) {
	update(c, c.daemonSets, types.NamespacedName{Namespace: ds.Namespace, Name: ds.Name}, ds)
}

// DeleteDaemonSet forgets a DaemonSet.
func (c *Cluster) DeleteDaemonSet(key types.NamespacedName) { remove(c, c.daemonSets, key) }

func update[K comparable, V any](c *Cluster, m map[K]V, key K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	put(c, m, key, v)
}

func remove[K comparable, V any](c *Cluster, m map[K]V, key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	drop(c, m, key)
}

// put stores v; the caller holds the lock.
func put[K comparable, V any](c *Cluster, m map[K]V, key K, v V) {
	m[key] = v
	c.changed()
}

// drop forgets key and reports whether it was held; the caller holds the lock.
func drop[K comparable, V any](c *Cluster, m map[K]V, key K) bool {
	if _, ok := m[key]; !ok {
		return false
	}
	delete(m, key)
	c.changed()
	return true
}

// Nominate records that the provisioner placed pods on a node (or in-flight NodeClaim) and counts
// on it until the given time.
func (c *Cluster) Nominate(name string, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if until.After(c.nominated[name]) {
		c.nominated[name] = until
		c.changed()
	}
}

// MarkForDeletion records that a disruption command is taking these NodeClaims away, so that
// provisioning stops counting on them; UnmarkForDeletion undoes it when the command is abandoned.
func (c *Cluster) MarkForDeletion(nodeClaims ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range nodeClaims {
		c.marked[n] = struct{}{}
	}
	c.changed()
}

// UnmarkForDeletion undoes MarkForDeletion.
func (c *Cluster) UnmarkForDeletion(nodeClaims ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range nodeClaims {
		delete(c.marked, n)
	}
	c.changed()
}

// sortedValues returns a map's values ordered by key, for deterministic snapshots.
func sortedValues[K comparable, V any](m map[K]V, less func(a, b K) int) []V {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, less)
	out := make([]V, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// NodeClass returns the named node class, or nil, without taking a snapshot.
func (c *Cluster) NodeClass(name string) NodeClass {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.nodeClasses[name]
}

// AnyNodePool reports whether some NodePool satisfies f, without building a snapshot.
func (c *Cluster) AnyNodePool(f func(*karpv1.NodePool) bool) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, np := range c.nodePools {
		if f(np) {
			return true
		}
	}
	return false
}

// NodePool returns the named NodePool, or nil, without taking a snapshot.
func (c *Cluster) NodePool(name string) *karpv1.NodePool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.nodePools[name]
}
