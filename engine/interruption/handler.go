package interruption

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
)

// Handler turns interruption events into NodeClaim deletions.
type Handler struct {
	cluster *state.Cluster
	exec    *executor.Executor
	journal *journal.Journal
	clock   clock.Clock
}

// New returns a handler that deletes NodeClaims through exec.
func New(cluster *state.Cluster, exec *executor.Executor, j *journal.Journal, c clock.Clock) *Handler {
	return &Handler{cluster: cluster, exec: exec, journal: j, clock: c}
}

// Run handles events from source until ctx ends.
func (h *Handler) Run(ctx context.Context, source cloudprovider.Interruptions) error {
	return source.Run(ctx, h.Handle)
}

// EventReason is the Kubernetes event reason and type Karpenter records on the NodeClaim and
// node of an interruption of this kind (for a state change, its detail tells a stop from a
// termination).
func EventReason(kind cloudprovider.InterruptionKind, detail string) (reason journal.Reason, eventType string) {
	switch kind {
	case cloudprovider.SpotInterruption:
		return journal.ReasonSpotInterrupted, corev1.EventTypeWarning
	case cloudprovider.RebalanceRecommendation:
		return journal.ReasonSpotRebalanceRecommendation, corev1.EventTypeNormal
	case cloudprovider.ScheduledChange:
		return journal.ReasonInstanceUnhealthy, corev1.EventTypeWarning
	case cloudprovider.CapacityReservationInterruption:
		return journal.ReasonCapacityReservationInstanceInterrupted, corev1.EventTypeWarning
	}
	if detail == "stopping" || detail == "stopped" {
		return journal.ReasonInstanceStopping, corev1.EventTypeWarning
	}
	return journal.ReasonInstanceTerminating, corev1.EventTypeWarning
}

// owns reports whether the machine of providerID is the event's. The cloud sends an event
// without a provider ID when it could not look its instance up; the instance ID, the provider
// ID's last segment, then matches as Karpenter matches it. Neither matches a NodeClaim not
// launched yet, whose provider ID is empty.
func owns(providerID string, ev cloudprovider.Interruption) bool {
	switch {
	case providerID == "":
		return false
	case ev.ProviderID != "":
		return providerID == ev.ProviderID
	default:
		return ev.InstanceID != "" && strings.HasSuffix(providerID, "/"+ev.InstanceID)
	}
}

// Handle acts on one event. An event about a machine no NodeClaim owns is recorded and dropped;
// a failure to delete is returned so that the event is delivered again.
func (h *Handler) Handle(ctx context.Context, ev cloudprovider.Interruption) error {
	ctx = cloudprovider.WithController(ctx, "interruption")
	snap := h.cluster.Snapshot()
	var target *state.Node
	for _, sn := range snap.Nodes {
		if sn.NodeClaim != nil && owns(sn.ProviderID(), ev) {
			target = sn
			break
		}
	}
	reason, eventType := EventReason(ev.Kind, ev.Detail)
	now := h.clock.Now()
	entry := journal.Entry{Time: now, Kind: journal.KindInterruption, Method: "Interruption", Reason: journal.Reason(ev.Kind), Until: ev.Deadline,
		MessageType: ev.MessageType(), DryRun: h.exec.DryRun()}
	if !ev.At.IsZero() {
		entry.Took = now.Sub(ev.At) // how long the message waited
	}
	if target == nil {
		entry.Message = fmt.Sprintf("%s for %s, which no nodeclaim owns; ignored", ev.Kind, ev.InstanceID)
		h.journal.Record(entry)
		return nil
	}
	nc := target.NodeClaim
	entry.NodeClaims, entry.NodePool, entry.Nodes = []string{nc.Name}, target.NodePool(), nodeName(target)
	for _, p := range target.Pods {
		entry.Pods = append(entry.Pods, p.Namespace+"/"+p.Name)
	}
	entry.Events = []journal.Event{{Object: nc, Type: eventType, Reason: reason, Message: fmt.Sprintf("%s: %s", ev.Kind, ev.Detail)}}
	if target.Node != nil {
		entry.Events = append(entry.Events, journal.Event{Object: target.Node, Type: eventType, Reason: reason, Message: fmt.Sprintf("%s: %s", ev.Kind, ev.Detail)})
	}
	if !ev.Drain {
		entry.Message = fmt.Sprintf("%s for nodeclaim %s (%s): noted, nothing to do", ev.Kind, nc.Name, ev.InstanceID)
		h.journal.Record(entry)
		return nil
	}
	if nc.DeletionTimestamp != nil {
		return nil // already terminating; the event repeats what termination is doing
	}
	// The interruption is journaled whatever came of it; its message says what did.
	err := h.exec.DeleteNodeClaim(ctx, nc.Name, fmt.Sprintf("(%s for %s)", ev.Kind, ev.InstanceID))
	verb := "deleting"
	switch {
	case executor.NotPerformed(err):
		verb, err = "would delete", nil
	case apierrors.IsNotFound(err):
		err = nil
	case err != nil:
		verb = "failed deleting"
	}
	entry.Message = fmt.Sprintf("%s nodeclaim %s: %s for %s, draining %d pod(s) before %s", verb, nc.Name, ev.Kind, ev.InstanceID,
		len(entry.Pods), deadlineText(ev))
	if err == nil {
		// As Karpenter, say on the NodeClaim and node that the interruption is why they go.
		for _, e := range slices.Clone(entry.Events) {
			entry.Events = append(entry.Events, journal.Event{Object: e.Object, Type: corev1.EventTypeWarning, Reason: journal.ReasonTerminatingOnInterruption,
				Message: fmt.Sprintf("Interruption triggered termination (%s)", ev.Kind)})
		}
	}
	h.journal.Record(entry)
	if err != nil {
		return fmt.Errorf("deleting nodeclaim %s for %s: %w", nc.Name, ev.Kind, err)
	}
	return nil
}

func deadlineText(ev cloudprovider.Interruption) string {
	if ev.Deadline.IsZero() {
		return "the instance goes"
	}
	return ev.Deadline.UTC().Format("15:04:05") + " UTC"
}

func nodeName(sn *state.Node) []string {
	if sn.Node == nil {
		return nil
	}
	return []string{sn.Node.Name}
}
