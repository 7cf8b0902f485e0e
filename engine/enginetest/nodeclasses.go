package enginetest

import (
	"context"

	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/state"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// CreateNodeClass stores an EC2NodeClass with the CRD's defaults and without status (set it
// with UpdateNodeClassStatus).
func (a *API) CreateNodeClass(ctx context.Context, nc *awsv1.EC2NodeClass) (*awsv1.EC2NodeClass, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nc = nc.DeepCopy()
	nc.SetDefaults()
	nc.Status = awsv1.EC2NodeClassStatus{}
	a.mu.Lock()
	defer a.mu.Unlock()
	return create(a, a.nodeClasses, nc)
}

// NodeClass returns a copy of an EC2NodeClass, or a NotFound error.
func (a *API) NodeClass(name string) (*awsv1.EC2NodeClass, error) {
	return copyOf(a, a.nodeClasses, types.NamespacedName{Name: name})
}

// NodeClasses returns copies of every EC2NodeClass, ordered by name.
func (a *API) NodeClasses() []*awsv1.EC2NodeClass { return listOf(a, a.nodeClasses) }

// UpdateNodeClass changes an EC2NodeClass's metadata and spec; a spec change bumps its
// generation.
func (a *API) UpdateNodeClass(ctx context.Context, name string, mutate func(state.NodeClass) error) (state.NodeClass, error) {
	nc, err := update(ctx, a, a.nodeClasses, types.NamespacedName{Name: name}, func(nc *awsv1.EC2NodeClass) error { return mutate(nc) }, func(stored, m *awsv1.EC2NodeClass) (*awsv1.EC2NodeClass, error) {
		if err := keepServerMeta(a.nodeClasses.resource, stored, m); err != nil {
			return nil, err
		}
		if !sameJSON(stored.Spec, m.Spec) {
			m.Generation++
			if err := a.nodeClasses.validated(m); err != nil {
				return nil, err
			}
		}
		m.Status = stored.Status
		return m, nil
	})
	if err != nil {
		return nil, err
	}
	return nc, nil
}

// UpdateNodeClassStatus changes an EC2NodeClass's status only.
func (a *API) UpdateNodeClassStatus(ctx context.Context, name string, mutate func(state.NodeClass) error) error {
	_, err := call(ctx, a, OpUpdateNodeClassStatus, func() (*awsv1.EC2NodeClass, error) {
		return a.updateNodeClassStatus(ctx, name, func(nc *awsv1.EC2NodeClass) error { return mutate(nc) })
	})
	return err
}

// updateNodeClassStatus is UpdateNodeClassStatus without fault injection, for seeding.
func (a *API) updateNodeClassStatus(ctx context.Context, name string, mutate func(*awsv1.EC2NodeClass) error) (*awsv1.EC2NodeClass, error) {
	return update(ctx, a, a.nodeClasses, types.NamespacedName{Name: name}, mutate, func(stored, m *awsv1.EC2NodeClass) (*awsv1.EC2NodeClass, error) {
		out := stored.DeepCopy()
		out.Status = m.Status
		return out, nil
	})
}

// DeleteNodeClass deletes an EC2NodeClass (finalizers are honoured).
func (a *API) DeleteNodeClass(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return markDeleted(a, a.nodeClasses, types.NamespacedName{Name: name})
}
