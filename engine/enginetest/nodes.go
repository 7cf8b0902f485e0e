package enginetest

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// CreateNode stores a node as given (status included), as a kubelet registers it or a test
// seeds one.
func (a *API) CreateNode(ctx context.Context, node *corev1.Node) (*corev1.Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return create(a, a.nodes, node)
}

// Node returns a copy of a node, or a NotFound error.
func (a *API) Node(name string) (*corev1.Node, error) {
	return copyOf(a, a.nodes, types.NamespacedName{Name: name})
}

// Nodes returns copies of every node, ordered by name.
func (a *API) Nodes() []*corev1.Node { return listOf(a, a.nodes) }

// UpdateNode changes a node's metadata and spec (labels, taints, unschedulable, finalizers).
func (a *API) UpdateNode(ctx context.Context, name string, mutate func(*corev1.Node) error) (*corev1.Node, error) {
	return call(ctx, a, OpUpdateNode, func() (*corev1.Node, error) { return a.updateNode(ctx, name, mutate) })
}

// updateNode is UpdateNode without fault injection, for the kubelet.
func (a *API) updateNode(ctx context.Context, name string, mutate func(*corev1.Node) error) (*corev1.Node, error) {
	return update(ctx, a, a.nodes, types.NamespacedName{Name: name}, mutate, func(stored, m *corev1.Node) (*corev1.Node, error) {
		if err := keepServerMeta(a.nodes.resource, stored, m); err != nil {
			return nil, err
		}
		m.Status = stored.Status
		return m, nil
	})
}

// UpdateNodeStatus changes a node's status, as the kubelet does.
func (a *API) UpdateNodeStatus(ctx context.Context, name string, mutate func(*corev1.Node) error) (*corev1.Node, error) {
	return update(ctx, a, a.nodes, types.NamespacedName{Name: name}, mutate, func(stored, m *corev1.Node) (*corev1.Node, error) {
		out := stored.DeepCopy()
		out.Status = m.Status
		return out, nil
	})
}

// DeleteNode deletes a node: at once without finalizers, otherwise it gets a deletion
// timestamp and goes when its last finalizer is removed.
func (a *API) DeleteNode(ctx context.Context, name string) error {
	_, err := call(ctx, a, OpDeleteNode, func() (struct{}, error) { return struct{}{}, a.deleteNode(ctx, name) })
	return err
}

// deleteNode is DeleteNode without fault injection, for the kubelet.
func (a *API) deleteNode(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return markDeleted(a, a.nodes, types.NamespacedName{Name: name})
}
