package enginetest

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// CreateNodeClaim creates a NodeClaim (generateName is honoured) with the CRD's defaults and
// without status, as the status subresource drops it, and returns it as stored.
func (a *API) CreateNodeClaim(ctx context.Context, nc *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	return call(ctx, a, OpCreateNodeClaim, func() (*karpv1.NodeClaim, error) {
		nc = nc.DeepCopy()
		nc.SetDefaults()
		nc.Status = karpv1.NodeClaimStatus{}
		a.mu.Lock()
		defer a.mu.Unlock()
		return create(a, a.nodeClaims, nc)
	})
}

// NodeClaim returns a copy of a NodeClaim, or a NotFound error.
func (a *API) NodeClaim(name string) (*karpv1.NodeClaim, error) {
	return copyOf(a, a.nodeClaims, types.NamespacedName{Name: name})
}

// NodeClaims returns copies of every NodeClaim, ordered by name.
func (a *API) NodeClaims() []*karpv1.NodeClaim { return listOf(a, a.nodeClaims) }

// UpdateNodeClaim changes a NodeClaim's metadata. Its spec is immutable, as the CRD's
// validation says: changing it is an Invalid error.
func (a *API) UpdateNodeClaim(ctx context.Context, name string, mutate func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error) {
	return call(ctx, a, OpUpdateNodeClaim, func() (*karpv1.NodeClaim, error) {
		return update(ctx, a, a.nodeClaims, types.NamespacedName{Name: name}, mutate, func(stored, m *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
			if err := keepServerMeta(a.nodeClaims.resource, stored, m); err != nil {
				return nil, err
			}
			if !sameJSON(stored.Spec, m.Spec) {
				return nil, apierrors.NewInvalid(schema.GroupKind{Group: karpv1.Group, Kind: karpv1.KindNodeClaim}, name,
					field.ErrorList{field.Invalid(field.NewPath("spec"), "", "spec is immutable")})
			}
			m.Status = stored.Status
			return m, nil
		})
	})
}

// UpdateNodeClaimStatus changes a NodeClaim's status only.
func (a *API) UpdateNodeClaimStatus(ctx context.Context, name string, mutate func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error) {
	return call(ctx, a, OpUpdateNodeClaimStatus, func() (*karpv1.NodeClaim, error) {
		return update(ctx, a, a.nodeClaims, types.NamespacedName{Name: name}, mutate, func(stored, m *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
			out := stored.DeepCopy()
			out.Status = m.Status
			return out, nil
		})
	})
}

// DeleteNodeClaim starts a NodeClaim's deletion: with finalizers it gets a deletion timestamp
// and stays until the last one is removed; without, it goes at once.
func (a *API) DeleteNodeClaim(ctx context.Context, name string) error {
	_, err := call(ctx, a, OpDeleteNodeClaim, func() (struct{}, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		return struct{}{}, markDeleted(a, a.nodeClaims, types.NamespacedName{Name: name})
	})
	return err
}
