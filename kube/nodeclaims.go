package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// CreateNodeClaim creates nc as it is given (name or generateName, labels, owner references,
// finalizers) and returns it as stored. nc is not changed.
func (w *Writer) CreateNodeClaim(ctx context.Context, nc *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	return w.clients.NodeClaims.Create(ctx, nc)
}

// UpdateNodeClaim changes the named NodeClaim's metadata and spec (labels, annotations,
// finalizers; its spec is immutable once created).
func (w *Writer) UpdateNodeClaim(ctx context.Context, name string, mutate func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error) {
	return update(ctx, fmt.Sprintf("nodeclaim %q", name), w.getNodeClaim(name), mutate, w.patchNodeClaim(name, false))
}

// UpdateNodeClaimStatus changes the named NodeClaim's status through the status subresource.
func (w *Writer) UpdateNodeClaimStatus(ctx context.Context, name string, mutate func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error) {
	return update(ctx, fmt.Sprintf("status of nodeclaim %q", name), w.getNodeClaim(name), mutate, w.patchNodeClaim(name, true))
}

// DeleteNodeClaim starts the named NodeClaim's deletion; its finalizer keeps it until
// termination removes the finalizer.
func (w *Writer) DeleteNodeClaim(ctx context.Context, name string) error {
	return w.clients.NodeClaims.Delete(ctx, name, metav1.DeleteOptions{})
}

func (w *Writer) getNodeClaim(name string) func(context.Context) (*karpv1.NodeClaim, error) {
	return func(ctx context.Context) (*karpv1.NodeClaim, error) { return w.clients.NodeClaims.Get(ctx, name) }
}

func (w *Writer) patchNodeClaim(name string, status bool) func(context.Context, []byte) (*karpv1.NodeClaim, error) {
	return func(ctx context.Context, patch []byte) (*karpv1.NodeClaim, error) {
		return w.clients.NodeClaims.Patch(ctx, name, patch, status)
	}
}
