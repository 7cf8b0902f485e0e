package cloudprovider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// CloudProvider launches, finds and terminates the machines behind NodeClaims. The engine calls
// it; the aws package implements it for EC2.
type CloudProvider interface {
	// Create launches one machine for the NodeClaim, choosing among its requirements' instance
	// types, zones and capacity types, and returns the NodeClaim with its status filled:
	// providerID, imageID, capacity, allocatable, and labels for instance type, zone and capacity
	// type. Launching twice for the same NodeClaim (a retry after a crash) returns the machine
	// of the first launch. An *InsufficientCapacityError means no offering could be had.
	Create(ctx context.Context, nodeClaim *karpv1.NodeClaim) (*karpv1.NodeClaim, error)
	// Delete terminates the NodeClaim's machine. A *NodeClaimNotFoundError means it is gone.
	Delete(ctx context.Context, nodeClaim *karpv1.NodeClaim) error
	// Get returns the machine with this provider ID as a NodeClaim (status and labels only).
	Get(ctx context.Context, providerID string) (*karpv1.NodeClaim, error)
	// List returns every machine this cluster launched and has not terminated.
	List(ctx context.Context) ([]*karpv1.NodeClaim, error)
	// InstanceTypes returns what the NodePool's node class can launch, with offerings whose
	// Available flag reflects recent capacity errors and interruptions.
	InstanceTypes(ctx context.Context, nodePool *karpv1.NodePool) ([]*InstanceType, error)
	// IsDrifted says why a launched machine no longer matches its node class, or "".
	IsDrifted(ctx context.Context, nodeClaim *karpv1.NodeClaim) (DriftReason, error)
	// Name names the provider ("aws").
	Name() string
	// NodeClassKind is the group and kind of the node class NodePools reference
	// (karpenter.k8s.aws EC2NodeClass), as Karpenter's GetSupportedNodeClasses names them.
	NodeClassKind() schema.GroupKind
}

// DriftReason says why a machine drifted from its node class.
type DriftReason string

// InsufficientCapacityError says that none of a NodeClaim's offerings could be launched now.
// The offerings it names are marked unavailable, so the next solve picks others.
type InsufficientCapacityError struct {
	NodeClaim string
	// Offerings lists the capacity-type:instance-type:zone triples that failed.
	Offerings []string
	Cause     error
}

func (e *InsufficientCapacityError) Error() string {
	return fmt.Sprintf("insufficient capacity for nodeclaim %q (%d offerings failed): %v", e.NodeClaim, len(e.Offerings), e.Cause)
}

func (e *InsufficientCapacityError) Unwrap() error { return e.Cause }

// IsInsufficientCapacity reports whether err is, or wraps, an *InsufficientCapacityError.
func IsInsufficientCapacity(err error) bool {
	var e *InsufficientCapacityError
	return errors.As(err, &e)
}

// NodeClaimNotFoundError says that the machine behind a NodeClaim no longer exists.
type NodeClaimNotFoundError struct {
	ProviderID string
}

func (e *NodeClaimNotFoundError) Error() string {
	return fmt.Sprintf("no machine with provider id %q", e.ProviderID)
}

// IsNodeClaimNotFound reports whether err is, or wraps, a *NodeClaimNotFoundError.
func IsNodeClaimNotFound(err error) bool {
	var e *NodeClaimNotFoundError
	return errors.As(err, &e)
}

// NodeClassNotReadyError says that a NodeClaim's node class cannot be used yet (its subnets,
// security groups or AMIs are not resolved, or it does not exist).
type NodeClassNotReadyError struct {
	NodeClass string
	Reason    string
}

func (e *NodeClassNotReadyError) Error() string {
	return fmt.Sprintf("node class %q is not ready: %s", e.NodeClass, e.Reason)
}

// InterruptionKind is what the cloud announced about a machine.
type InterruptionKind string

// Interruption kinds, as EventBridge delivers them for EC2.
const (
	// SpotInterruption: the spot instance is reclaimed in two minutes.
	SpotInterruption InterruptionKind = "SpotInterruption"
	// RebalanceRecommendation: the spot instance is at elevated risk; nothing is due.
	RebalanceRecommendation InterruptionKind = "RebalanceRecommendation"
	// ScheduledChange: AWS Health scheduled maintenance or retirement.
	ScheduledChange InterruptionKind = "ScheduledChange"
	// StateChange: the instance is stopping, stopped, shutting down or terminated.
	StateChange InterruptionKind = "StateChange"
	// CapacityReservationInterruption: the capacity reservation the instance runs in is reclaimed.
	CapacityReservationInterruption InterruptionKind = "CapacityReservationInterruption"
)

// Interruption is one announcement about one machine.
type Interruption struct {
	Kind InterruptionKind
	// InstanceID is the machine's ID, the last segment of its provider ID; ProviderID is empty
	// when the cloud could not look the machine up.
	InstanceID string
	ProviderID string
	// Detail is what the cloud said (the new state, the scheduled event's description).
	Detail string
	// At is when the cloud sent it; Deadline when the machine goes away (zero if unknown).
	At       time.Time
	Deadline time.Time
	// Drain is true when the node must be drained and deleted; false for a notice only.
	Drain bool
}

// MessageType is the interruption message's kind as Karpenter's AWS provider names it in
// karpenter_interruption_received_messages_total: spot_interrupted, rebalance_recommendation,
// scheduled_change, instance_stopped, instance_terminated, capacity_reservation_interrupted.
func (i Interruption) MessageType() string {
	switch i.Kind {
	case SpotInterruption:
		return "spot_interrupted"
	case RebalanceRecommendation:
		return "rebalance_recommendation"
	case ScheduledChange:
		return "scheduled_change"
	case CapacityReservationInterruption:
		return "capacity_reservation_interrupted"
	case StateChange:
		if i.Detail == "stopping" || i.Detail == "stopped" {
			return "instance_stopped"
		}
		return "instance_terminated"
	}
	return "no_op"
}

// Interruptions delivers the cloud's interruption events. Run calls handle for each event, one
// at a time, until ctx ends; an event whose handle fails is delivered again later.
type Interruptions interface {
	Run(ctx context.Context, handle func(context.Context, Interruption) error) error
}

// CreateError is a launch that failed for a reason the provider can name: the NodeClaim's
// Launched condition carries Reason and Message, as Karpenter's does.
type CreateError struct {
	Reason, Message string
	Err             error
}

func (e *CreateError) Error() string { return e.Err.Error() }

// Unwrap returns the provider's error.
func (e *CreateError) Unwrap() error { return e.Err }
