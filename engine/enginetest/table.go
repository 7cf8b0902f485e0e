package enginetest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// object is what every stored kind is.
type object interface {
	metav1.Object
	runtime.Object
}

// table stores the objects of one kind. Its functions run with the API's lock held. Stored
// objects are never changed in place and never handed out: every change stores a new object,
// and callers and the cluster state get deep copies.
type table[T object] struct {
	resource   schema.GroupResource
	namespaced bool
	items      map[types.NamespacedName]T
	clone      func(T) T
	// stored and removed tell the cluster state, as an informer would.
	stored  func(T)
	removed func(T)
	// sorted caches the stored objects in list order until the next change.
	sorted []T
	// kind and validate, when validate is set, check objects as their CRD's validation does.
	kind     schema.GroupKind
	validate func(T) field.ErrorList
}

// validated returns an Invalid error when the table validates its objects and obj fails.
func (t *table[T]) validated(obj T) error {
	if t.validate == nil {
		return nil
	}
	if errs := t.validate(obj); len(errs) > 0 {
		return apierrors.NewInvalid(t.kind, obj.GetName(), errs)
	}
	return nil
}

func newTable[T object](resource schema.GroupResource, namespaced bool, clone func(T) T, stored, removed func(T)) *table[T] {
	return &table[T]{resource: resource, namespaced: namespaced, items: map[types.NamespacedName]T{}, clone: clone, stored: stored, removed: removed}
}

func keyOf(o metav1.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
}

// get returns the stored object (not a copy: do not change it) or a NotFound error.
func (t *table[T]) get(key types.NamespacedName) (T, error) {
	o, ok := t.items[key]
	if !ok {
		var zero T
		return zero, apierrors.NewNotFound(t.resource, key.Name)
	}
	return o, nil
}

// list returns copies of every object, ordered by namespace and name.
func (t *table[T]) list() []T {
	shared := t.shared()
	out := make([]T, len(shared))
	for i, o := range shared {
		out[i] = t.clone(o)
	}
	return out
}

// shared returns the stored objects themselves, ordered by namespace and name. Stored objects
// never change (every change stores a new one), so the slice stays valid and consistent after
// the lock is released; but it must not be modified, nor its objects.
func (t *table[T]) shared() []T {
	if t.sorted == nil {
		t.sorted = make([]T, 0, len(t.items))
		for _, o := range t.items {
			t.sorted = append(t.sorted, o)
		}
		slices.SortFunc(t.sorted, func(a, b T) int {
			return cmp.Or(strings.Compare(a.GetNamespace(), b.GetNamespace()), strings.Compare(a.GetName(), b.GetName()))
		})
	}
	return t.sorted
}

// sharedOf returns the stored objects of a kind, read-only, for the pieces of this package.
func sharedOf[T object](a *API, t *table[T]) []T {
	a.mu.Lock()
	defer a.mu.Unlock()
	return t.shared()
}

// copyOf returns a copy of the named object.
func copyOf[T object](a *API, t *table[T], key types.NamespacedName) (T, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	o, err := t.get(key)
	if err != nil {
		return o, err
	}
	return t.clone(o), nil
}

// listOf returns copies of every object of a kind.
func listOf[T object](a *API, t *table[T]) []T {
	a.mu.Lock()
	defer a.mu.Unlock()
	return t.list()
}

// create stores a new object as the API server would: it honours generateName, assigns a UID,
// the creation time, generation 1 and a resource version, and ignores any deletion timestamp.
func create[T object](a *API, t *table[T], obj T) (T, error) {
	obj = t.clone(obj)
	if t.namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	if !t.namespaced {
		obj.SetNamespace("")
	}
	if obj.GetName() == "" {
		if obj.GetGenerateName() == "" {
			var zero T
			return zero, apierrors.NewBadRequest(fmt.Sprintf("%s: name or generateName is required", t.resource))
		}
		obj.SetName(generateName(a, t, obj.GetNamespace(), obj.GetGenerateName()))
	}
	if _, exists := t.items[keyOf(obj)]; exists {
		var zero T
		return zero, apierrors.NewAlreadyExists(t.resource, obj.GetName())
	}
	if err := t.validated(obj); err != nil {
		var zero T
		return zero, err
	}
	a.uids++
	obj.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", a.uids)))
	obj.SetCreationTimestamp(metav1.NewTime(a.clock.Now()))
	obj.SetGeneration(1)
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	return put(a, t, obj), nil
}

// generateName returns prefix plus a five character suffix, deterministic and unused, from
// the alphabet the API server draws its random suffixes from.
func generateName[T object](a *API, t *table[T], namespace, prefix string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	for {
		n := a.suffixes
		a.suffixes++
		suffix := make([]byte, 5)
		for i := len(suffix) - 1; i >= 0; i-- {
			suffix[i] = alphabet[n%uint64(len(alphabet))]
			n /= uint64(len(alphabet))
		}
		name := prefix + string(suffix)
		if _, taken := t.items[types.NamespacedName{Namespace: namespace, Name: name}]; !taken {
			return name
		}
	}
}

// put stores obj with a new resource version, or removes it when its deletion is due and no
// finalizer holds it (a pod in its grace period stays until the kubelet finishes it), and
// returns a copy of what is stored.
func put[T object](a *API, t *table[T], obj T) T {
	grace := obj.GetDeletionGracePeriodSeconds()
	if obj.GetDeletionTimestamp() != nil && len(obj.GetFinalizers()) == 0 && (grace == nil || *grace == 0) {
		remove(a, t, obj)
		return t.clone(obj)
	}
	a.version++
	obj = t.clone(obj)
	obj.SetResourceVersion(strconv.FormatUint(a.version, 10))
	t.items[keyOf(obj)] = obj
	t.sorted = nil
	stored := t.clone(obj)
	a.tell(func() { t.stored(stored) })
	return t.clone(obj)
}

// remove forgets an object.
func remove[T object](a *API, t *table[T], obj T) {
	key := keyOf(obj)
	if _, ok := t.items[key]; !ok {
		return
	}
	a.version++
	delete(t.items, key)
	t.sorted = nil
	a.tell(func() { t.removed(obj) })
}

// markDeleted starts an object's deletion: removed at once without finalizers, otherwise given
// a deletion timestamp (once) and kept until the last finalizer goes.
func markDeleted[T object](a *API, t *table[T], key types.NamespacedName) error {
	cur, err := t.get(key)
	if err != nil {
		return err
	}
	if len(cur.GetFinalizers()) == 0 {
		remove(a, t, cur)
		return nil
	}
	if cur.GetDeletionTimestamp() != nil {
		return nil
	}
	next := t.clone(cur)
	now := metav1.NewTime(a.clock.Now())
	next.SetDeletionTimestamp(&now)
	zero := int64(0)
	next.SetDeletionGracePeriodSeconds(&zero)
	put(a, t, next)
	return nil
}

// maxUpdateAttempts bounds the retries of an update that keeps conflicting, as client-go's
// retry.DefaultRetry does.
const maxUpdateAttempts = 5

// update applies mutate to a deep copy of the latest object and stores what apply makes of the
// stored and the mutated object, retrying on conflict as retry.RetryOnConflict would: mutate
// may run more than once, each time on a fresh copy. A conflict happens when the object changed
// while mutate ran, or when the test forces one.
func update[T object](ctx context.Context, a *API, t *table[T], key types.NamespacedName, mutate func(T) error,
	apply func(stored, mutated T) (T, error)) (T, error) {
	var zero T
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		a.mu.Lock()
		cur, err := t.get(key)
		if err != nil {
			a.mu.Unlock()
			return zero, err
		}
		working, version := t.clone(cur), cur.GetResourceVersion()
		a.mu.Unlock()

		if err := mutate(working); err != nil {
			return zero, err
		}

		a.mu.Lock()
		cur, err = t.get(key)
		if err != nil {
			a.mu.Unlock()
			return zero, err
		}
		if cur.GetResourceVersion() != version || a.forceConflict(attempt) {
			a.mu.Unlock()
			if attempt+1 >= maxUpdateAttempts {
				return zero, apierrors.NewConflict(t.resource, key.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
			}
			continue
		}
		next, err := apply(cur, working)
		if err != nil {
			a.mu.Unlock()
			return zero, err
		}
		if sameJSON(cur, next) {
			// As the API server, an update that changes nothing writes nothing: no new
			// resourceVersion, no watch event.
			a.mu.Unlock()
			return t.clone(cur), nil
		}
		out := put(a, t, next)
		a.mu.Unlock()
		return out, nil
	}
}

// forceConflict reports whether this write attempt must conflict; the caller holds the lock.
func (a *API) forceConflict(attempt int) bool {
	if a.conflicts > 0 {
		a.conflicts--
		return true
	}
	return a.conflictEvery && attempt == 0
}

// keepServerMeta resets what only the API server sets in metadata to the stored values, and
// refuses new finalizers on an object being deleted, as the API server does.
func keepServerMeta(resource schema.GroupResource, stored, m metav1.Object) error {
	m.SetName(stored.GetName())
	m.SetNamespace(stored.GetNamespace())
	m.SetGenerateName(stored.GetGenerateName())
	m.SetUID(stored.GetUID())
	m.SetResourceVersion(stored.GetResourceVersion())
	m.SetCreationTimestamp(stored.GetCreationTimestamp())
	m.SetDeletionTimestamp(stored.GetDeletionTimestamp())
	m.SetDeletionGracePeriodSeconds(stored.GetDeletionGracePeriodSeconds())
	m.SetGeneration(stored.GetGeneration())
	if stored.GetDeletionTimestamp() == nil {
		return nil
	}
	var added []string
	for _, f := range m.GetFinalizers() {
		if !slices.Contains(stored.GetFinalizers(), f) {
			added = append(added, f)
		}
	}
	if len(added) > 0 {
		return apierrors.NewForbidden(resource, stored.GetName(),
			fmt.Errorf("no new finalizers can be added if the object is being deleted, found new finalizers %q", added))
	}
	return nil
}

// sameJSON reports whether a and b serialize identically. The API server compares stored
// objects as JSON (a CRD's "self == oldSelf"), so an unchanged value written differently in
// memory is still unchanged.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
