package kube_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/kube"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// testEvents: events the Writer records about a NodeClaim (cluster-scoped, as read from the API:
// no kind set) and a Pod appear through the API with their reason, type, message, involved object
// and Karpenter's component.
func testEvents(t *testing.T, e *env) {
	const ns = "events"
	ctx := t.Context()
	createNamespace(t, e.client, ns)
	pool, err := e.clients.NodePools.Get(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	nc, err := e.writer.CreateNodeClaim(ctx, testNodeClaim("events-", pool))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeNodeClaim(t, e, nc.Name) })
	pod, err := e.client.CoreV1().Pods(ns).Create(ctx, testPod(ns, "evicted", "1000"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		object            runtime.Object
		eventType, reason string
		namespace, kind   string
		name              string
	}{
		{nc, corev1.EventTypeNormal, "Launched", metav1.NamespaceDefault, karpv1.KindNodeClaim, nc.Name},
		{pod, corev1.EventTypeWarning, "FailedDraining", ns, "Pod", pod.Name},
	} {
		message := fmt.Sprintf("%s about %s %s", tc.reason, tc.kind, tc.name)
		e.writer.Event(tc.object, tc.eventType, tc.reason, message)
		selector := fields.OneTermEqualSelector("involvedObject.name", tc.name).String()
		eventually.True(t, 10*time.Second, "event "+tc.reason, func(ctx context.Context) (bool, string) {
			list, err := e.client.CoreV1().Events(tc.namespace).List(ctx, metav1.ListOptions{FieldSelector: selector})
			if err != nil {
				return false, err.Error()
			}
			for _, ev := range list.Items {
				if ev.Reason == tc.reason && ev.Type == tc.eventType && ev.Message == message &&
					ev.Source.Component == kube.EventComponent && ev.ReportingController == kube.EventComponent &&
					ev.InvolvedObject.Kind == tc.kind {
					return true, ""
				}
			}
			return false, fmt.Sprintf("%d events: %+v", len(list.Items), list.Items)
		})
	}
}

// removeNodeClaim removes the named NodeClaim's finalizers and deletes it.
func removeNodeClaim(t *testing.T, e *env, name string) {
	ctx := context.WithoutCancel(t.Context())
	_, err := e.writer.UpdateNodeClaim(ctx, name, func(nc *karpv1.NodeClaim) error {
		nc.Finalizers = nil
		return nil
	})
	if err == nil {
		err = e.writer.DeleteNodeClaim(ctx, name)
	}
	if err != nil {
		t.Errorf("remove nodeclaim %s: %v", name, err)
	}
}
