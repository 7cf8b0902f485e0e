package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Object is a typed API object with metadata: a NodePool, NodeClaim, EC2NodeClass, Node...
type Object interface {
	runtime.Object
	metav1.Object
}

// Resource is a typed client for one cluster-scoped custom resource (nodepools, nodeclaims or
// ec2nodeclasses) over a REST client of its API group. Errors are the API server's, wrapped with
// the resource and name, so apierrors.IsNotFound and friends still recognise them.
type Resource[T Object] struct {
	client   rest.Interface
	resource string // plural, as in the URL: "nodeclaims"
	kind     string // singular, lower case, for messages: "nodeclaim"
	newObj   func() T
}

// newResource returns the client of resource on client, a REST client of the resource's group
// and version; newObj returns an empty object to decode into.
func newResource[T Object](client rest.Interface, resource, kind string, newObj func() T) Resource[T] {
	return Resource[T]{client: client, resource: resource, kind: kind, newObj: newObj}
}

// Get reads the named object from the API server.
func (r Resource[T]) Get(ctx context.Context, name string) (T, error) {
	out := r.newObj()
	err := r.client.Get().Resource(r.resource).Name(name).Do(ctx).Into(out)
	if err != nil {
		return out, fmt.Errorf("get %s %q: %w", r.kind, name, err)
	}
	return out, nil
}

// Create creates obj (its generateName, owner references and finalizers as given) and returns
// the object as stored.
func (r Resource[T]) Create(ctx context.Context, obj T) (T, error) {
	out := r.newObj()
	err := r.client.Post().Resource(r.resource).Body(obj).Do(ctx).Into(out)
	if err != nil {
		return out, fmt.Errorf("create %s %q: %w", r.kind, nameOf(obj), err)
	}
	return out, nil
}

// Patch applies a JSON merge patch to the named object, or to its status when status is true,
// and returns the result. Fields the patch does not name are left as stored, including any this
// client's types do not know (from a newer Karpenter CRD).
func (r Resource[T]) Patch(ctx context.Context, name string, patch []byte, status bool) (T, error) {
	out := r.newObj()
	req := r.client.Patch(types.MergePatchType).Resource(r.resource).Name(name)
	what := r.kind
	if status {
		req, what = req.SubResource("status"), "status of "+r.kind
	}
	if err := req.Body(patch).Do(ctx).Into(out); err != nil {
		return out, fmt.Errorf("patch %s %q: %w", what, name, err)
	}
	return out, nil
}

// Delete starts the deletion of the named object; finalizers keep it until they are removed.
func (r Resource[T]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	err := r.client.Delete().Resource(r.resource).Name(name).Body(&opts).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("delete %s %q: %w", r.kind, name, err)
	}
	return nil
}

// ListWatch lists and watches every object of the resource, for an informer.
func (r Resource[T]) ListWatch() *cache.ListWatch {
	return cache.NewListWatchFromClient(r.client, r.resource, metav1.NamespaceAll, fields.Everything())
}

// nameOf names an object for messages: its name, else its generateName followed by "*".
func nameOf(obj metav1.Object) string {
	if obj.GetName() == "" && obj.GetGenerateName() != "" {
		return obj.GetGenerateName() + "*"
	}
	return obj.GetName()
}
