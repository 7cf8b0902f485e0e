package enginetest

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/types"
)

// CreatePDB stores a PodDisruptionBudget (namespace "default" when unset). Its status is not
// maintained: Evict computes what the disruption controller would, from the pods at that moment.
func (a *API) CreatePDB(ctx context.Context, pdb *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return create(a, a.pdbs, pdb)
}

// PDB returns a copy of a PodDisruptionBudget, or a NotFound error.
func (a *API) PDB(namespace, name string) (*policyv1.PodDisruptionBudget, error) {
	return copyOf(a, a.pdbs, types.NamespacedName{Namespace: namespace, Name: name})
}

// PDBs returns copies of every PodDisruptionBudget, ordered by namespace and name.
func (a *API) PDBs() []*policyv1.PodDisruptionBudget { return listOf(a, a.pdbs) }

// UpdatePDB changes a PodDisruptionBudget's metadata and spec.
func (a *API) UpdatePDB(ctx context.Context, namespace, name string, mutate func(*policyv1.PodDisruptionBudget) error) (*policyv1.PodDisruptionBudget, error) {
	return update(ctx, a, a.pdbs, types.NamespacedName{Namespace: namespace, Name: name}, mutate,
		func(stored, m *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
			if err := keepServerMeta(a.pdbs.resource, stored, m); err != nil {
				return nil, err
			}
			m.Status = stored.Status
			return m, nil
		})
}

// DeletePDB deletes a PodDisruptionBudget.
func (a *API) DeletePDB(ctx context.Context, namespace, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return markDeleted(a, a.pdbs, types.NamespacedName{Namespace: namespace, Name: name})
}
