package kube_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/internal/eventually"
)

// testUnschedulablePending: kube-scheduler marks a pod that fits nowhere Unschedulable, and the
// informer-fed state lists it among the pending pods; once deleted, it leaves the state.
func testUnschedulablePending(t *testing.T, e *env) {
	const ns = "unschedulable"
	createNamespace(t, e.client, ns)
	pod := testPod(ns, "too-big", "1000")
	if _, err := e.client.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	key := types.NamespacedName{Namespace: ns, Name: pod.Name}
	eventually.True(t, 30*time.Second, "pod too-big pending in the state", func(context.Context) (bool, string) {
		for _, p := range e.state.Snapshot().PendingPods() {
			if p.Namespace == ns && p.Name == pod.Name {
				return true, ""
			}
		}
		return false, fmt.Sprintf("conditions in the state: %v", stateConditions(e, key))
	})
	var scheduled *corev1.PodCondition
	for _, p := range e.state.Snapshot().Pods {
		for i, c := range p.Status.Conditions {
			if p.Name == pod.Name && p.Namespace == ns && c.Type == corev1.PodScheduled {
				scheduled = &p.Status.Conditions[i]
			}
		}
		if len(p.ManagedFields) > 0 {
			t.Errorf("pod %s/%s kept its managedFields in the state", p.Namespace, p.Name)
		}
	}
	if scheduled == nil || scheduled.Reason != corev1.PodReasonUnschedulable {
		t.Errorf("PodScheduled condition %+v, want reason Unschedulable", scheduled)
	}

	if err := e.client.CoreV1().Pods(ns).Delete(t.Context(), pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod: %v", err)
	}
	eventually.True(t, 10*time.Second, "pod too-big gone from the state", func(context.Context) (bool, string) {
		return stateConditions(e, key) == nil, "still there"
	})
}

// stateConditions returns the conditions of the pod key in e.state, or nil if it is not there.
func stateConditions(e *env, key types.NamespacedName) []corev1.PodCondition {
	for _, p := range e.state.Snapshot().Pods {
		if p.Namespace == key.Namespace && p.Name == key.Name {
			return append([]corev1.PodCondition{}, p.Status.Conditions...)
		}
	}
	return nil
}
