package enginetest

import (
	"context"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// The operations of the API that FailNext and OnCall know: the state.APIWriter methods.
const (
	OpCreateNodeClaim       = "CreateNodeClaim"
	OpUpdateNodeClaim       = "UpdateNodeClaim"
	OpUpdateNodeClaimStatus = "UpdateNodeClaimStatus"
	OpDeleteNodeClaim       = "DeleteNodeClaim"
	OpUpdateNode            = "UpdateNode"
	OpDeleteNode            = "DeleteNode"
	OpEvict                 = "Evict"
	OpDeletePod             = "DeletePod"
	OpUpdateNodePoolStatus  = "UpdateNodePoolStatus"
	OpUpdateNodeClassStatus = "UpdateNodeClassStatus"
	// OpEvent is reported to OnCall but cannot fail: events are best effort.
	OpEvent = "Event"
)

// API is an in-memory Kubernetes API server for pods, nodes, NodePools, NodeClaims,
// EC2NodeClasses, PodDisruptionBudgets and DaemonSets. It implements state.APIWriter with the
// semantics the engine relies on, and feeds a state.Cluster in order, as informers would: every
// stored change calls the matching Update or Delete of the cluster, at once or, after
// SetWatchLag, late.
//
// Like the real API server it bumps resource versions, honours generateName, keeps objects
// with finalizers until the last one is removed after deletion started, separates status from
// metadata and spec (and drops the status a NodeClaim, NodePool or EC2NodeClass is created
// with, as their status subresource does), refuses a change to a NodeClaim's spec, refuses new
// finalizers on an object being deleted, answers NotFound, AlreadyExists and Conflict errors
// that apierrors recognises, and evaluates PodDisruptionBudgets on eviction.
//
// NodePools, NodeClaims and EC2NodeClasses are validated (their Validate methods, which mirror
// the CRDs) on creation and on spec changes; an invalid object is an Invalid error.
//
// Simplified: no admission, no other validation, no watch, no field managers; pod
// spec changes other than nodeName are allowed; a pod's deletion completes only when the
// Kubelet (or a zero grace period) finishes it.
//
// The methods that are not part of state.APIWriter are for tests and for the other pieces of this
// package: seeding objects, reading deep copies, and what the kubelet and the scheduler write.
// They never fail by injection and are not reported to OnCall.
type API struct {
	faults
	clock   clock.Clock
	cluster *state.Cluster

	mu            sync.Mutex
	version       uint64
	uids          uint64
	suffixes      uint64
	conflicts     int
	conflictEvery bool

	pods        *table[*corev1.Pod]
	nodes       *table[*corev1.Node]
	nodePools   *table[*karpv1.NodePool]
	nodeClaims  *table[*karpv1.NodeClaim]
	nodeClasses *table[*awsv1.EC2NodeClass]
	pdbs        *table[*policyv1.PodDisruptionBudget]
	daemonSets  *table[*appsv1.DaemonSet]

	// watchLag, round and held are SetWatchLag's: the changes the cluster state has not heard
	// of yet.
	watchLag, round uint64
	held            []heldEvent

	events    []Event
	evictions []Eviction
	// scales holds the replicas of pod controllers, by UID, for budgets.
	scales map[types.UID]int
}

var _ state.APIWriter = (*API)(nil)

// heldEvent is a change the cluster state has not heard of yet, and the round it was stored in.
type heldEvent struct {
	round   uint64
	deliver func()
}

// SetWatchLag makes the cluster state hear of each change only rounds rounds of Env.Settle
// after the round that stored it, in the order the changes were stored: the loops that run in
// between see the state as it was, as after a write whose watch event has not arrived yet.
func (a *API) SetWatchLag(rounds int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.watchLag = uint64(rounds)
}

// tell passes a stored change on to the cluster state, at once or, under a watch lag, later;
// the caller holds the lock.
func (a *API) tell(deliver func()) {
	if a.watchLag == 0 && len(a.held) == 0 {
		deliver()
		return
	}
	a.held = append(a.held, heldEvent{round: a.round, deliver: deliver})
}

// Relist delivers every held change at once, as a restarted process's informers start from a
// list of the objects as they are.
func (a *API) Relist() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.held {
		e.deliver()
	}
	a.held = nil
}

// deliverDue starts a round of Env.Settle: it passes the held changes that are due on to the
// cluster state, in order, and reports whether any change is still held or was just delivered.
func (a *API) deliverDue() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.round++
	n := 0
	for ; n < len(a.held) && a.round-a.held[n].round >= a.watchLag; n++ {
		a.held[n].deliver()
	}
	a.held = a.held[n:]
	return n > 0 || len(a.held) > 0
}

// NewAPI returns an empty API server that feeds cluster, and marks every kind of cluster
// synced (the informers' initial lists were empty).
func NewAPI(clk clock.Clock, cluster *state.Cluster) *API {
	a := &API{
		faults: newFaults(OpCreateNodeClaim, OpUpdateNodeClaim, OpUpdateNodeClaimStatus, OpDeleteNodeClaim, OpUpdateNode,
			OpDeleteNode, OpEvict, OpDeletePod, OpUpdateNodePoolStatus, OpUpdateNodeClassStatus),
		clock:   clk,
		cluster: cluster,
		scales:  map[types.UID]int{},
	}
	core := func(resource string) schema.GroupResource { return schema.GroupResource{Resource: resource} }
	karp := func(resource string) schema.GroupResource {
		return schema.GroupResource{Group: karpv1.Group, Resource: resource}
	}
	a.pods = newTable(core("pods"), true, (*corev1.Pod).DeepCopy, cluster.UpdatePod,
		func(p *corev1.Pod) { cluster.DeletePod(keyOf(p)) })
	a.nodes = newTable(core("nodes"), false, (*corev1.Node).DeepCopy, cluster.UpdateNode,
		func(n *corev1.Node) { cluster.DeleteNode(n.Name) })
	a.nodePools = newTable(karp("nodepools"), false, (*karpv1.NodePool).DeepCopy, cluster.UpdateNodePool,
		func(np *karpv1.NodePool) { cluster.DeleteNodePool(np.Name) })
	a.nodeClaims = newTable(karp("nodeclaims"), false, (*karpv1.NodeClaim).DeepCopy, cluster.UpdateNodeClaim,
		func(nc *karpv1.NodeClaim) { cluster.DeleteNodeClaim(nc.Name) })
	a.nodeClasses = newTable(schema.GroupResource{Group: awsv1.Group, Resource: "ec2nodeclasses"}, false,
		(*awsv1.EC2NodeClass).DeepCopy, func(nc *awsv1.EC2NodeClass) { cluster.UpdateNodeClass(nc) }, func(nc *awsv1.EC2NodeClass) { cluster.DeleteNodeClass(nc.Name) })
	a.pdbs = newTable(schema.GroupResource{Group: policyv1.GroupName, Resource: "poddisruptionbudgets"}, true,
		(*policyv1.PodDisruptionBudget).DeepCopy, cluster.UpdatePDB, func(p *policyv1.PodDisruptionBudget) { cluster.DeletePDB(keyOf(p)) })
	a.daemonSets = newTable(schema.GroupResource{Group: appsv1.GroupName, Resource: "daemonsets"}, true,
		(*appsv1.DaemonSet).DeepCopy, cluster.UpdateDaemonSet, func(ds *appsv1.DaemonSet) { cluster.DeleteDaemonSet(keyOf(ds)) })
	a.nodePools.kind, a.nodePools.validate = schema.GroupKind{Group: karpv1.Group, Kind: karpv1.KindNodePool}, (*karpv1.NodePool).Validate
	a.nodeClaims.kind, a.nodeClaims.validate = schema.GroupKind{Group: karpv1.Group, Kind: karpv1.KindNodeClaim}, (*karpv1.NodeClaim).Validate
	a.nodeClasses.kind, a.nodeClasses.validate = schema.GroupKind{Group: awsv1.Group, Kind: "EC2NodeClass"}, (*awsv1.EC2NodeClass).Validate
	for _, kind := range state.Kinds() {
		cluster.MarkSynced(kind)
	}
	return a
}

// ForceConflicts makes the next n update attempts (of any update method) conflict, so that
// the caller's mutate function runs again on a fresh copy: it proves callers are retry-safe.
func (a *API) ForceConflicts(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.conflicts += n
}

// ConflictEveryUpdate, when on, makes the first attempt of every update conflict, so that every
// mutate function runs at least twice.
func (a *API) ConflictEveryUpdate(on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.conflictEvery = on
}

// Version is the last resource version the API handed out (it grows with every change).
func (a *API) Version() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.version
}

// The ...Shared methods return the stored objects, ordered, for the pieces of this package to
// read without copying: never modify them.
func (a *API) podsShared() []*corev1.Pod             { return sharedOf(a, a.pods) }
func (a *API) nodesShared() []*corev1.Node           { return sharedOf(a, a.nodes) }
func (a *API) daemonSetsShared() []*appsv1.DaemonSet { return sharedOf(a, a.daemonSets) }
func (a *API) nodeClaimsShared() []*karpv1.NodeClaim { return sharedOf(a, a.nodeClaims) }
func (a *API) nodePoolsShared() []*karpv1.NodePool   { return sharedOf(a, a.nodePools) }

// call runs one state.APIWriter operation: it fails early when ctx ended or a failure is
// injected, and reports the call to the OnCall hook once it returns.
func call[R any](ctx context.Context, a *API, op string, f func() (R, error)) (R, error) {
	defer a.end(op)
	if err := a.begin(ctx, op); err != nil {
		var zero R
		return zero, err
	}
	return f()
}
