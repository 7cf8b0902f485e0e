package kube

import (
	"context"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// RunInformers keeps cluster up to date with the cluster cfg points at until ctx ends: one
// shared informer per kind the engine reads (pods, nodes, PodDisruptionBudgets, DaemonSets,
// NodePools, NodeClaims, EC2NodeClasses) calls the matching state.Cluster method on every event,
// and cluster.MarkSynced(kind) once the kind's initial list has been delivered.
//
// The informers hand cluster the objects of their caches, not copies (managedFields dropped), so
// an event costs one decoded object whatever the size of the cluster.
//
// Before starting, it lists each kind once (one object) to fail fast: an error names the kind
// and says whether the CRDs are missing or the identity lacks a permission. After that, API errors
// are retried by the informers. RunInformers returns nil when ctx ends (even during those first
// lists), after every informer has stopped.
func RunInformers(ctx context.Context, cfg *rest.Config, cluster *state.Cluster) error {
	clients, err := NewClients(cfg)
	if err != nil {
		return err
	}
	var watched []feed
	for _, f := range feeds(clients, cluster) {
		err := f.probe(ctx)
		switch {
		case err == nil:
			watched = append(watched, f)
		case optional(f.kind) && apierrors.IsForbidden(err):
			cluster.MarkUnwatched(f.kind, err.Error())
		case ctx.Err() != nil:
			return nil
		default:
			return err
		}
	}
	return runFeeds(ctx, watched, cluster)
}

// runFeeds runs one informer per feed into cluster until ctx ends, marking each kind synced
// once its initial list has been handled, and returns after every informer has stopped.
func runFeeds(ctx context.Context, fs []feed, cluster *state.Cluster) error {
	type started struct {
		kind     string
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandlerRegistration
	}
	all := make([]started, 0, len(fs))
	for _, f := range fs {
		informer := cache.NewSharedIndexInformerWithOptions(f.lw, f.example, cache.SharedIndexInformerOptions{ObjectDescription: f.kind})
		if err := informer.SetTransform(dropManagedFields); err != nil {
			return fmt.Errorf("%s informer: %w", f.kind, err)
		}
		handler, err := informer.AddEventHandler(f.handler)
		if err != nil {
			return fmt.Errorf("%s informer: %w", f.kind, err)
		}
		all = append(all, started{f.kind, informer, handler})
	}

	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { s.informer.RunWithContext(ctx) })
		wg.Go(func() {
			if cache.WaitFor(ctx, "", s.handler.HasSyncedChecker()) {
				cluster.MarkSynced(s.kind)
			}
		})
	}
	wg.Wait()
	return nil
}

// feed is where one kind comes from and what to do with its events.
type feed struct {
	kind    string // a state.Kind* constant
	lw      listerWatcher
	example runtime.Object
	handler cache.ResourceEventHandler
}

// optional reports whether a kind may be forbidden to the identity (a console's viewer may not
// read VolumeAttachments): it is then marked unwatched instead of failing the start.
func optional(kind string) bool {
	switch kind {
	case state.KindVolumeAttachment, state.KindPVC, state.KindPV, state.KindStorageClass:
		return true
	}
	return false
}

// listerWatcher lists and watches one kind; *cache.ListWatch is one.
type listerWatcher interface {
	cache.ListerWatcher
	cache.ListerWatcherWithContext
}

// feeds returns the feed of every kind cluster holds.
func feeds(c *Clients, cluster *state.Cluster) []feed {
	all := fields.Everything()
	core, policy, apps, storage := c.Kube.CoreV1().RESTClient(), c.Kube.PolicyV1().RESTClient(), c.Kube.AppsV1().RESTClient(), c.Kube.StorageV1().RESTClient()
	return []feed{
		{state.KindPod, cache.NewListWatchFromClient(core, "pods", metav1.NamespaceAll, all), &corev1.Pod{},
			handle(cluster.UpdatePod, func(p *corev1.Pod) { cluster.DeletePod(pods.Key(p)) })},
		{state.KindNode, cache.NewListWatchFromClient(core, "nodes", metav1.NamespaceAll, all), &corev1.Node{},
			handle(cluster.UpdateNode, func(n *corev1.Node) { cluster.DeleteNode(n.Name) })},
		{state.KindPDB, cache.NewListWatchFromClient(policy, "poddisruptionbudgets", metav1.NamespaceAll, all), &policyv1.PodDisruptionBudget{},
			handle(cluster.UpdatePDB, func(p *policyv1.PodDisruptionBudget) { cluster.DeletePDB(namespacedName(p)) })},
		{state.KindDaemonSet, cache.NewListWatchFromClient(apps, "daemonsets", metav1.NamespaceAll, all), &appsv1.DaemonSet{},
			handle(cluster.UpdateDaemonSet, func(d *appsv1.DaemonSet) { cluster.DeleteDaemonSet(namespacedName(d)) })},
		{state.KindVolumeAttachment, cache.NewListWatchFromClient(storage, "volumeattachments", metav1.NamespaceAll, all), &storagev1.VolumeAttachment{},
			handle(cluster.UpdateVolumeAttachment, func(va *storagev1.VolumeAttachment) { cluster.DeleteVolumeAttachment(va.Name) })},
		{state.KindPVC, cache.NewListWatchFromClient(core, "persistentvolumeclaims", metav1.NamespaceAll, all), &corev1.PersistentVolumeClaim{},
			handle(cluster.UpdatePVC, func(p *corev1.PersistentVolumeClaim) { cluster.DeletePVC(namespacedName(p)) })},
		{state.KindPV, cache.NewListWatchFromClient(core, "persistentvolumes", metav1.NamespaceAll, all), &corev1.PersistentVolume{},
			handle(cluster.UpdatePV, func(pv *corev1.PersistentVolume) { cluster.DeletePV(pv.Name) })},
		{state.KindStorageClass, cache.NewListWatchFromClient(storage, "storageclasses", metav1.NamespaceAll, all), &storagev1.StorageClass{},
			handle(cluster.UpdateStorageClass, func(sc *storagev1.StorageClass) { cluster.DeleteStorageClass(sc.Name) })},
		{state.KindNodePool, c.NodePools.ListWatch(), &karpv1.NodePool{},
			handle(cluster.UpdateNodePool, func(np *karpv1.NodePool) { cluster.DeleteNodePool(np.Name) })},
		{state.KindNodeClaim, c.NodeClaims.ListWatch(), &karpv1.NodeClaim{},
			handle(cluster.UpdateNodeClaim, func(nc *karpv1.NodeClaim) { cluster.DeleteNodeClaim(nc.Name) })},
		{state.KindNodeClass, c.NodeClasses.ListWatch(), &awsv1.EC2NodeClass{},
			handle(func(nc *awsv1.EC2NodeClass) { cluster.UpdateNodeClass(nc) }, func(nc *awsv1.EC2NodeClass) { cluster.DeleteNodeClass(nc.Name) })},
	}
}

// probe lists one object of the feed's kind, to report a missing CRD or permission at once.
func (f feed) probe(ctx context.Context) error {
	_, err := f.lw.ListWithContext(ctx, metav1.ListOptions{Limit: 1})
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("list %s: the API server does not serve it (install the CRDs: nodepilot install-crds): %w", f.kind, err)
	default:
		return fmt.Errorf("list %s: %w", f.kind, err)
	}
}

// handle returns the event handler that passes objects of type T to upsert and remove. A delete
// whose final state the informer missed (a tombstone) still removes the object.
func handle[T runtime.Object](upsert, remove func(T)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := obj.(T); ok {
				upsert(o)
			}
		},
		UpdateFunc: func(_, obj any) {
			if o, ok := obj.(T); ok {
				upsert(o)
			}
		},
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if o, ok := obj.(T); ok {
				remove(o)
			}
		},
	}
}

// namespacedName is the key of a namespaced object.
func namespacedName(o metav1.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
}

// dropManagedFields is the informers' transform: managedFields (server-side apply bookkeeping)
// are often the largest part of an object and the engine never reads them.
func dropManagedFields(obj any) (any, error) {
	if o, ok := obj.(metav1.Object); ok {
		o.SetManagedFields(nil)
	}
	return obj, nil
}
