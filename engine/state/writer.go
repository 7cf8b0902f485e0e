package state

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// APIWriter is everything the engine changes through the Kubernetes API (the in-memory Cluster
// only follows it). The kube package implements it over client-go; the engine's tests over an
// in-memory API. Update methods fetch the latest object, apply mutate, and retry on conflict;
// mutate may run more than once. A missing object is reported with an error that
// apierrors.IsNotFound recognises.
type APIWriter interface {
	// CreateNodeClaim creates a NodeClaim (generateName is honoured) and returns it as stored.
	CreateNodeClaim(ctx context.Context, nc *karpv1.NodeClaim) (*karpv1.NodeClaim, error)
	// UpdateNodeClaim changes a NodeClaim's metadata and spec.
	UpdateNodeClaim(ctx context.Context, name string, mutate func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error)
	// UpdateNodeClaimStatus changes a NodeClaim's status.
	UpdateNodeClaimStatus(ctx context.Context, name string, mutate func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error)
	// DeleteNodeClaim starts a NodeClaim's deletion (its finalizer keeps it until termination).
	DeleteNodeClaim(ctx context.Context, name string) error
	// UpdateNode changes a Node's metadata and spec (labels, taints, unschedulable, finalizers).
	UpdateNode(ctx context.Context, name string, mutate func(*corev1.Node) error) (*corev1.Node, error)
	// DeleteNode deletes a Node.
	DeleteNode(ctx context.Context, name string) error
	// Evict asks the Eviction API to evict a pod. An eviction a PodDisruptionBudget refuses
	// returns an error wrapping ErrEvictionRefused.
	Evict(ctx context.Context, pod *corev1.Pod) error
	// DeletePod deletes a pod with a grace period (nil: the pod's own).
	DeletePod(ctx context.Context, pod *corev1.Pod, gracePeriodSeconds *int64) error
	// UpdateNodePool changes a NodePool's metadata (its hash annotations).
	UpdateNodePool(ctx context.Context, name string, mutate func(*karpv1.NodePool) error) (*karpv1.NodePool, error)
	// UpdateNodePoolStatus changes a NodePool's status.
	UpdateNodePoolStatus(ctx context.Context, name string, mutate func(*karpv1.NodePool) error) error
	// UpdateNodeClass changes a node class's metadata (finalizers, annotations); mutate gets the
	// cloud provider's own type.
	UpdateNodeClass(ctx context.Context, name string, mutate func(NodeClass) error) (NodeClass, error)
	// UpdateNodeClassStatus changes a node class's status; mutate gets the cloud provider's own
	// type.
	UpdateNodeClassStatus(ctx context.Context, name string, mutate func(NodeClass) error) error
	// Event records a Kubernetes event about an object (best effort: it never fails).
	Event(object runtime.Object, eventType, reason, message string)
}

// ErrEvictionRefused is wrapped by Evict's error when a PodDisruptionBudget refuses (HTTP 429).
var ErrEvictionRefused = errors.New("eviction refused by a PodDisruptionBudget")

// EvictionRefusedError carries the budget that refused, when the API server names it.
type EvictionRefusedError struct {
	Pod     string
	Message string
}

func (e *EvictionRefusedError) Error() string {
	return fmt.Sprintf("evicting %s: %s", e.Pod, e.Message)
}

// Unwrap makes errors.Is(err, ErrEvictionRefused) true.
func (e *EvictionRefusedError) Unwrap() error { return ErrEvictionRefused }
