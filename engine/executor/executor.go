package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Mode is what the executor does with a write.
type Mode int

// Modes.
const (
	// Live performs every action and journals it.
	Live Mode = iota
	// DryRun journals every action as "would" and performs none.
	DryRun
	// ReadOnly refuses every action.
	ReadOnly
)

func (m Mode) String() string {
	switch m {
	case DryRun:
		return "dry-run"
	case ReadOnly:
		return "read-only"
	}
	return "live"
}

// Kind names an action.
type Kind string

// Action kinds: every write nodepilot makes.
const (
	CreateNodeClaim       Kind = "CreateNodeClaim"
	UpdateNodeClaim       Kind = "UpdateNodeClaim"
	UpdateNodeClaimStatus Kind = "UpdateNodeClaimStatus"
	DeleteNodeClaim       Kind = "DeleteNodeClaim"
	UpdateNode            Kind = "UpdateNode"
	DeleteNode            Kind = "DeleteNode"
	EvictPod              Kind = "EvictPod"
	DeletePod             Kind = "DeletePod"
	UpdateNodePoolStatus  Kind = "UpdateNodePoolStatus"
	UpdateNodeClassStatus Kind = "UpdateNodeClassStatus"
	Launch                Kind = "Launch"
	Terminate             Kind = "Terminate"
	CreateInstanceProfile Kind = "CreateInstanceProfile"
	DeleteQueueMessage    Kind = "DeleteQueueMessage"
	DeleteInstanceProfile Kind = "DeleteInstanceProfile"
	UpdateNodeClass       Kind = "UpdateNodeClass"
	UpdateNodePool        Kind = "UpdateNodePool"
	// ExecInPod runs a command in a pod's container (the console's shell): not a write itself,
	// but the command can change anything, so it is held to the same modes and journaled.
	ExecInPod Kind = "ExecInPod"
)

// Action is one write: what it does, to which object, in an operator's words.
type Action struct {
	Kind Kind
	// Object names what the action changes ("nodeclaim/default-x7k2p", "node/ip-10-0-1-2").
	Object string
	// Message says what it does, without the verb's mood ("taint node x karpenter.sh/disrupted").
	Message string
	// NodePool is the NodePool the object belongs to, where known.
	NodePool string
}

// ErrReadOnly is what every action answers in read-only mode.
var ErrReadOnly = errors.New("nodepilot runs read-only (--readonly): it changes nothing")

// errNotPerformed is wrapped by what every action answers in dry-run mode.
var errNotPerformed = errors.New("not performed in dry-run")

// NotPerformed reports whether err says that a dry-run executor held the action back. A loop
// that gets it stops the sequence the action began, as if it had been done elsewhere.
func NotPerformed(err error) bool { return errors.Is(err, errNotPerformed) }

// wouldWindow is how long a repeated dry-run action is journaled once: the loops decide the
// same thing every pass while nothing changes.
const wouldWindow = 10 * time.Minute

// Executor performs actions in its mode. It is safe for concurrent use.
type Executor struct {
	mode    Mode
	writer  state.APIWriter
	cloud   cloudprovider.CloudProvider
	journal *journal.Journal
	clock   clock.Clock

	mu     sync.Mutex
	would  map[Action]time.Time // when each held-back action was last journaled
	pruned time.Time            // when would was last swept of expired actions
}

// New returns an executor over the cluster writer and the cloud provider. j may be nil (no
// journal); in ReadOnly and DryRun the writer and the cloud's mutating methods are never called.
func New(mode Mode, writer state.APIWriter, cloud cloudprovider.CloudProvider, j *journal.Journal, c clock.Clock) *Executor {
	return &Executor{mode: mode, writer: writer, cloud: cloud, journal: j, clock: c, would: map[Action]time.Time{}}
}

// Do performs one action in the executor's mode: live, it calls perform and journals the action
// (and its failure); dry-run, it journals "would" once per window and returns an error that
// NotPerformed recognises; read-only, it returns ErrReadOnly.
func (e *Executor) Do(ctx context.Context, a Action, perform func(context.Context) error) error {
	switch e.mode {
	case ReadOnly:
		return fmt.Errorf("%s %s: %w", a.Kind, a.Object, ErrReadOnly)
	case DryRun:
		e.recordWould(a)
		return fmt.Errorf("would %s: %w", a.Message, errNotPerformed)
	}
	err := perform(ctx)
	e.record(a, err)
	return err
}

func (e *Executor) record(a Action, err error) {
	if e.journal == nil {
		return
	}
	entry := journal.Entry{Time: e.clock.Now(), Kind: journal.KindAction, Reason: journal.Reason(a.Kind), NodePool: a.NodePool, Message: a.Message}
	if err != nil {
		entry.Message, entry.Failed = fmt.Sprintf("%s failed: %v", a.Message, err), true
	}
	e.journal.Record(entry)
}

func (e *Executor) recordWould(a Action) {
	now := e.clock.Now()
	e.mu.Lock()
	last, seen := e.would[a]
	if seen && now.Sub(last) < wouldWindow {
		e.mu.Unlock()
		return
	}
	if now.Sub(e.pruned) >= wouldWindow { // at most one sweep a window, not one per new action
		for k, t := range e.would {
			if now.Sub(t) >= wouldWindow {
				delete(e.would, k)
			}
		}
		e.pruned = now
	}
	e.would[a] = now
	e.mu.Unlock()
	if e.journal != nil {
		e.journal.Record(journal.Entry{Time: now, Kind: journal.KindAction, Reason: journal.Reason(a.Kind), NodePool: a.NodePool,
			Message: "would " + a.Message, DryRun: true})
	}
}

// Events returns where the journal's Kubernetes events go in a mode: the writer when live,
// nowhere otherwise (an event is a write too). The journal, built before the executor, takes it.
func Events(mode Mode, writer state.APIWriter) journal.Recorder {
	if mode != Live {
		return discard{}
	}
	return writer
}

type discard struct{}

func (discard) Event(runtime.Object, string, string, string) {}

// doFor is Do for a write that returns what it wrote (the zero value when not performed).
func doFor[T any](ctx context.Context, e *Executor, a Action, perform func(context.Context) (T, error)) (T, error) {
	var out T
	err := e.Do(ctx, a, func(ctx context.Context) (err error) {
		out, err = perform(ctx)
		return err
	})
	return out, err
}

// CreateNodeClaim creates a NodeClaim and returns it as stored.
func (e *Executor) CreateNodeClaim(ctx context.Context, nc *karpv1.NodeClaim, why string) (*karpv1.NodeClaim, error) {
	return doFor(ctx, e, Action{Kind: CreateNodeClaim, Object: "nodeclaim/" + nc.GenerateName + nc.Name, NodePool: nc.Labels[karpv1.NodePoolLabelKey],
		Message: "create nodeclaim " + why}, func(ctx context.Context) (*karpv1.NodeClaim, error) { return e.writer.CreateNodeClaim(ctx, nc) })
}

// UpdateNodeClaim changes a NodeClaim's metadata and spec; what says how.
func (e *Executor) UpdateNodeClaim(ctx context.Context, name, what string, mutate func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error) {
	return doFor(ctx, e, Action{Kind: UpdateNodeClaim, Object: "nodeclaim/" + name, Message: what + " on nodeclaim " + name},
		func(ctx context.Context) (*karpv1.NodeClaim, error) {
			return e.writer.UpdateNodeClaim(ctx, name, mutate)
		})
}

// UpdateNodeClaimStatus changes a NodeClaim's status; what says how.
func (e *Executor) UpdateNodeClaimStatus(ctx context.Context, name, what string, mutate func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error) {
	return doFor(ctx, e, Action{Kind: UpdateNodeClaimStatus, Object: "nodeclaim/" + name, Message: what + " in nodeclaim " + name + "'s status"},
		func(ctx context.Context) (*karpv1.NodeClaim, error) {
			return e.writer.UpdateNodeClaimStatus(ctx, name, mutate)
		})
}

// DeleteNodeClaim starts a NodeClaim's deletion; why says what for.
func (e *Executor) DeleteNodeClaim(ctx context.Context, name, why string) error {
	return e.Do(ctx, Action{Kind: DeleteNodeClaim, Object: "nodeclaim/" + name, Message: "delete nodeclaim " + name + " " + why},
		func(ctx context.Context) error { return e.writer.DeleteNodeClaim(ctx, name) })
}

// UpdateNode changes a Node's metadata and spec; what says how.
func (e *Executor) UpdateNode(ctx context.Context, name, what string, mutate func(*corev1.Node) error) (*corev1.Node, error) {
	return doFor(ctx, e, Action{Kind: UpdateNode, Object: "node/" + name, Message: what + " on node " + name},
		func(ctx context.Context) (*corev1.Node, error) { return e.writer.UpdateNode(ctx, name, mutate) })
}

// DeleteNode deletes a Node.
func (e *Executor) DeleteNode(ctx context.Context, name string) error {
	return e.Do(ctx, Action{Kind: DeleteNode, Object: "node/" + name, Message: "delete node " + name},
		func(ctx context.Context) error { return e.writer.DeleteNode(ctx, name) })
}

// Evict asks the Eviction API to evict a pod (see state.APIWriter.Evict).
func (e *Executor) Evict(ctx context.Context, pod *corev1.Pod) error {
	name := pod.Namespace + "/" + pod.Name
	return e.Do(ctx, Action{Kind: EvictPod, Object: "pod/" + name, Message: "evict pod " + name + " from node " + pod.Spec.NodeName},
		func(ctx context.Context) error { return e.writer.Evict(ctx, pod) })
}

// DeletePod deletes a pod with a grace period (nil: the pod's own).
func (e *Executor) DeletePod(ctx context.Context, pod *corev1.Pod, gracePeriodSeconds *int64) error {
	name := pod.Namespace + "/" + pod.Name
	return e.Do(ctx, Action{Kind: DeletePod, Object: "pod/" + name, Message: "delete pod " + name + " from node " + pod.Spec.NodeName},
		func(ctx context.Context) error { return e.writer.DeletePod(ctx, pod, gracePeriodSeconds) })
}

// UpdateNodePool changes a NodePool's metadata (its hash annotations).
func (e *Executor) UpdateNodePool(ctx context.Context, name, what string, mutate func(*karpv1.NodePool) error) error {
	return e.Do(ctx, Action{Kind: UpdateNodePool, Object: "nodepool/" + name, NodePool: name, Message: what + " on nodepool " + name},
		func(ctx context.Context) error { _, err := e.writer.UpdateNodePool(ctx, name, mutate); return err })
}

// UpdateNodePoolStatus changes a NodePool's status.
func (e *Executor) UpdateNodePoolStatus(ctx context.Context, name string, mutate func(*karpv1.NodePool) error) error {
	return e.Do(ctx, Action{Kind: UpdateNodePoolStatus, Object: "nodepool/" + name, NodePool: name, Message: "update nodepool " + name + "'s status"},
		func(ctx context.Context) error { return e.writer.UpdateNodePoolStatus(ctx, name, mutate) })
}

// UpdateNodeClass changes a node class's metadata (its finalizers, annotations).
func (e *Executor) UpdateNodeClass(ctx context.Context, name, what string, mutate func(state.NodeClass) error) error {
	kind := e.nodeClassKind()
	return e.Do(ctx, Action{Kind: UpdateNodeClass, Object: kind + "/" + name, Message: what + " on " + kind + " " + name},
		func(ctx context.Context) error { _, err := e.writer.UpdateNodeClass(ctx, name, mutate); return err })
}

// nodeClassKind names the cloud provider's node class as its actions and messages do
// ("ec2nodeclass").
func (e *Executor) nodeClassKind() string {
	if e.cloud == nil {
		return "nodeclass"
	}
	return strings.ToLower(e.cloud.NodeClassKind().Kind)
}

// UpdateNodeClassStatus changes a node class's status.
func (e *Executor) UpdateNodeClassStatus(ctx context.Context, name string, mutate func(state.NodeClass) error) error {
	kind := e.nodeClassKind()
	return e.Do(ctx, Action{Kind: UpdateNodeClassStatus, Object: kind + "/" + name, Message: "update " + kind + " " + name + "'s status"},
		func(ctx context.Context) error { return e.writer.UpdateNodeClassStatus(ctx, name, mutate) })
}

// Launch launches the NodeClaim's machine (cloudprovider.CloudProvider.Create).
func (e *Executor) Launch(ctx context.Context, nc *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	return doFor(ctx, e, Action{Kind: Launch, Object: "nodeclaim/" + nc.Name, NodePool: nc.Labels[karpv1.NodePoolLabelKey],
		Message: "launch an instance for nodeclaim " + nc.Name}, func(ctx context.Context) (*karpv1.NodeClaim, error) { return e.cloud.Create(ctx, nc) })
}

// Terminate terminates the NodeClaim's machine (cloudprovider.CloudProvider.Delete); why says
// what for.
func (e *Executor) Terminate(ctx context.Context, nc *karpv1.NodeClaim, why string) error {
	return e.Do(ctx, Action{Kind: Terminate, Object: "instance/" + nc.Status.ProviderID, NodePool: nc.Labels[karpv1.NodePoolLabelKey],
		Message: "terminate instance " + nc.Status.ProviderID + " of nodeclaim " + nc.Name + " " + why},
		func(ctx context.Context) error { return e.cloud.Delete(ctx, nc) })
}

// DryRun reports whether the executor only journals what it would do; loops mark their
// decisions' journal entries with it, so that metrics do not count what never happened.
func (e *Executor) DryRun() bool { return e.mode == DryRun }
