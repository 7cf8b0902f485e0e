package kube

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/nodepilot/nodepilot/engine/state"
)

// withBudgetCause adds a DisruptionBudget cause to an API error, as the eviction subresource does.
func withBudgetCause(err *apierrors.StatusError, message string) *apierrors.StatusError {
	if err.ErrStatus.Details == nil {
		err.ErrStatus.Details = &metav1.StatusDetails{}
	}
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: message})
	return err
}

// TestEvictionError: the Eviction API's answers become the Writer's errors.
func TestEvictionError(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", UID: "uid-1"}}
	noUID := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1"}}
	const budget = "Cannot evict pod as it would violate the pod's disruption budget."
	for _, tc := range []struct {
		name        string
		pod         *corev1.Pod
		err         error
		wantRefused string // the refusal's message; "" if not refused
		wantCheck   func(error) bool
	}{
		{name: "evicted", pod: pod, err: nil, wantCheck: func(err error) bool { return err == nil }},
		{name: "budget at its minimum", pod: pod,
			err:         withBudgetCause(apierrors.NewTooManyRequests(budget, 0), "The disruption budget web needs 2 healthy pods and has 2 currently"),
			wantRefused: budget + " The disruption budget web needs 2 healthy pods and has 2 currently"},
		{name: "budget not computed yet", pod: pod,
			err:         withBudgetCause(apierrors.NewTooManyRequests(budget, 10), "The disruption budget web is still being processed by the server."),
			wantRefused: budget + " The disruption budget web is still being processed by the server."},
		{name: "429 without a cause", pod: pod, err: apierrors.NewTooManyRequests("slow down", 1), wantRefused: "slow down"},
		{name: "budget with negative disruptions allowed", pod: pod,
			err:         withBudgetCause(apierrors.NewForbidden(schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}, "web", errors.New("pdb disruptions allowed is negative")), "The disruption budget web does not allow evicting pods currently"),
			wantRefused: `poddisruptionbudget.policy "web" is forbidden: pdb disruptions allowed is negative The disruption budget web does not allow evicting pods currently`},
		{name: "RBAC forbids", pod: pod, err: apierrors.NewForbidden(pods, "web-1", errors.New("no")), wantCheck: apierrors.IsForbidden},
		{name: "gone", pod: pod, err: apierrors.NewNotFound(pods, "web-1"), wantCheck: apierrors.IsNotFound},
		{name: "replaced under its name", pod: pod, err: apierrors.NewConflict(pods, "web-1", errors.New("uid mismatch")), wantCheck: apierrors.IsNotFound},
		{name: "conflict without a UID", pod: noUID, err: apierrors.NewConflict(pods, "web-1", errors.New("x")), wantCheck: apierrors.IsConflict},
		{name: "server error", pod: pod, err: apierrors.NewInternalError(errors.New("etcd")), wantCheck: apierrors.IsInternalError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := evictionError(tc.pod, tc.err)
			var refused *state.EvictionRefusedError
			isRefused := errors.As(err, &refused)
			if isRefused != errors.Is(err, state.ErrEvictionRefused) {
				t.Fatalf("errors.As and errors.Is disagree on %v", err)
			}
			switch {
			case tc.wantRefused != "":
				if !isRefused || refused.Message != tc.wantRefused || refused.Pod != "shop/web-1" {
					t.Errorf("err = %#v, want a refusal of shop/web-1 with message %q", err, tc.wantRefused)
				}
			case isRefused:
				t.Errorf("err = %v, want no refusal", err)
			case !tc.wantCheck(err):
				t.Errorf("err = %v, not the kind expected", err)
			}
		})
	}
}
