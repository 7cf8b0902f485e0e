package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// TestHandle: adds and updates reach upsert with the informer's object itself; deletes reach
// remove, also when the informer only has a tombstone; objects of another type are ignored.
func TestHandle(t *testing.T) {
	var upserted, removed []*corev1.Node
	h := handle(func(n *corev1.Node) { upserted = append(upserted, n) }, func(n *corev1.Node) { removed = append(removed, n) })
	a := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	b := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "b"}}
	h.OnAdd(a, true)
	h.OnUpdate(a, b)
	h.OnAdd(&corev1.Pod{}, false)
	h.OnDelete(a)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "b", Obj: b})
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "x", Obj: &corev1.Pod{}})
	if len(upserted) != 2 || upserted[0] != a || upserted[1] != b {
		t.Errorf("upserted %v, want a then b, the same objects", upserted)
	}
	if len(removed) != 2 || removed[0] != a || removed[1] != b {
		t.Errorf("removed %v, want a then b (from its tombstone)", removed)
	}
}

// TestDropManagedFields: the transform empties managedFields and passes anything else through.
func TestDropManagedFields(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}}}
	out, err := dropManagedFields(pod)
	if err != nil || out != pod || pod.ManagedFields != nil || pod.Name != "p" {
		t.Errorf("dropManagedFields(pod) = %v, %v; managedFields %v", out, err, pod.ManagedFields)
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "k"}
	if out, err := dropManagedFields(tombstone); err != nil || out != tombstone {
		t.Errorf("dropManagedFields(tombstone) = %v, %v", out, err)
	}
}
