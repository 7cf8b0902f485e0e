package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// UpdateNode changes the named Node's metadata and spec: labels, taints, unschedulable (cordon),
// finalizers. Changes to its status are ignored by the API server.
func (w *Writer) UpdateNode(ctx context.Context, name string, mutate func(*corev1.Node) error) (*corev1.Node, error) {
	nodes := w.kube.CoreV1().Nodes()
	get := func(ctx context.Context) (*corev1.Node, error) {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return n, fmt.Errorf("get node %q: %w", name, err)
		}
		return n, nil
	}
	send := func(ctx context.Context, patch []byte) (*corev1.Node, error) {
		out, err := nodes.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			return out, fmt.Errorf("patch node %q: %w", name, err)
		}
		return out, nil
	}
	return update(ctx, fmt.Sprintf("node %q", name), get, mutate, send)
}

// DeleteNode deletes the named Node.
func (w *Writer) DeleteNode(ctx context.Context, name string) error {
	if err := w.kube.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete node %q: %w", name, err)
	}
	return nil
}
