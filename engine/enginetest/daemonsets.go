package enginetest

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
)

// CreateDaemonSet stores a DaemonSet (namespace "default" when unset). The Env's DaemonSet
// controller runs its pods on the nodes they fit; the API alone does not.
func (a *API) CreateDaemonSet(ctx context.Context, ds *appsv1.DaemonSet) (*appsv1.DaemonSet, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return create(a, a.daemonSets, ds)
}

// DaemonSet returns a copy of a DaemonSet, or a NotFound error.
func (a *API) DaemonSet(namespace, name string) (*appsv1.DaemonSet, error) {
	return copyOf(a, a.daemonSets, types.NamespacedName{Namespace: namespace, Name: name})
}

// DaemonSets returns copies of every DaemonSet, ordered by namespace and name.
func (a *API) DaemonSets() []*appsv1.DaemonSet { return listOf(a, a.daemonSets) }

// DeleteDaemonSet deletes a DaemonSet; its pods stay (orphaned), as with an orphan deletion.
func (a *API) DeleteDaemonSet(ctx context.Context, namespace, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return markDeleted(a, a.daemonSets, types.NamespacedName{Namespace: namespace, Name: name})
}
