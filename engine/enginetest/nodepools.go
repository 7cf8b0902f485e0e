package enginetest

import (
	"context"

	"k8s.io/apimachinery/pkg/types"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// CreateNodePool stores a NodePool with the CRD's defaults and without status (the status
// subresource drops it; set it with UpdateNodePoolStatus).
func (a *API) CreateNodePool(ctx context.Context, np *karpv1.NodePool) (*karpv1.NodePool, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	np = np.DeepCopy()
	np.SetDefaults()
	np.Status = karpv1.NodePoolStatus{}
	a.mu.Lock()
	defer a.mu.Unlock()
	return create(a, a.nodePools, np)
}

// NodePool returns a copy of a NodePool, or a NotFound error.
func (a *API) NodePool(name string) (*karpv1.NodePool, error) {
	return copyOf(a, a.nodePools, types.NamespacedName{Name: name})
}

// NodePools returns copies of every NodePool, ordered by name.
func (a *API) NodePools() []*karpv1.NodePool { return listOf(a, a.nodePools) }

// UpdateNodePool changes a NodePool's metadata and spec, as a user editing it would; a spec
// change bumps its generation.
func (a *API) UpdateNodePool(ctx context.Context, name string, mutate func(*karpv1.NodePool) error) (*karpv1.NodePool, error) {
	return update(ctx, a, a.nodePools, types.NamespacedName{Name: name}, mutate, func(stored, m *karpv1.NodePool) (*karpv1.NodePool, error) {
		if err := keepServerMeta(a.nodePools.resource, stored, m); err != nil {
			return nil, err
		}
		if !sameJSON(stored.Spec, m.Spec) {
			m.Generation++
			if err := a.nodePools.validated(m); err != nil {
				return nil, err
			}
		}
		m.Status = stored.Status
		return m, nil
	})
}

// UpdateNodePoolStatus changes a NodePool's status only.
func (a *API) UpdateNodePoolStatus(ctx context.Context, name string, mutate func(*karpv1.NodePool) error) error {
	_, err := call(ctx, a, OpUpdateNodePoolStatus, func() (*karpv1.NodePool, error) {
		return update(ctx, a, a.nodePools, types.NamespacedName{Name: name}, mutate, func(stored, m *karpv1.NodePool) (*karpv1.NodePool, error) {
			out := stored.DeepCopy()
			out.Status = m.Status
			return out, nil
		})
	})
	return err
}

// DeleteNodePool deletes a NodePool (finalizers are honoured).
func (a *API) DeleteNodePool(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return markDeleted(a, a.nodePools, types.NamespacedName{Name: name})
}
