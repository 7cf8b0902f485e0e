package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
)

// Evict asks the Eviction API (policy/v1) to evict pod, as `kubectl drain` does: the API server
// deletes it gracefully unless a PodDisruptionBudget forbids it. It does not wait for the pod to
// go. The request is made once, without client-go's automatic retries on 429, so that a refusal
// reaches the caller at once.
//
// A refusal (HTTP 429, or 403 with a DisruptionBudget cause) returns a *state.EvictionRefusedError
// with the API server's message; errors.Is(err, state.ErrEvictionRefused) is true. A pod that is
// gone, or was replaced by a pod of the same name (its UID differs), returns an error that
// apierrors.IsNotFound recognises.
func (w *Writer) Evict(ctx context.Context, pod *corev1.Pod) error {
	eviction := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: uidPrecondition(pod)},
	}
	// The request client-go's typed Evict makes, with retries off.
	err := w.kube.PolicyV1().RESTClient().Post().AbsPath("/api/v1").
		Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource("eviction").
		MaxRetries(0).
		Body(eviction).Do(ctx).Error()
	return evictionError(pod, err)
}

// evictionError turns the Eviction API's answer about pod into the Writer's error.
func evictionError(pod *corev1.Pod, err error) error {
	key := pods.Key(pod).String()
	var status apierrors.APIStatus
	switch {
	case err == nil:
		return nil
	case apierrors.IsTooManyRequests(err), apierrors.IsForbidden(err) && hasBudgetCause(err):
		message := err.Error()
		if errors.As(err, &status) {
			message = statusMessage(status.Status())
		}
		return &state.EvictionRefusedError{Pod: key, Message: message}
	case apierrors.IsConflict(err) && pod.UID != "":
		return fmt.Errorf("evict pod %s: %w", key, replacedError(pod, err))
	default:
		return fmt.Errorf("evict pod %s: %w", key, err)
	}
}

// hasBudgetCause reports whether an API error names a PodDisruptionBudget as its cause.
func hasBudgetCause(err error) bool {
	cause, ok := apierrors.StatusCause(err, policyv1.DisruptionBudgetCause)
	return ok && cause.Message != ""
}

// statusMessage joins a Status's message with its causes' ("Cannot evict pod as it would violate
// the pod's disruption budget. The disruption budget web needs 2 healthy pods and has 2 currently").
func statusMessage(s metav1.Status) string {
	parts := []string{s.Message}
	if s.Details != nil {
		for _, cause := range s.Details.Causes {
			if cause.Message != "" {
				parts = append(parts, cause.Message)
			}
		}
	}
	return strings.Join(parts, " ")
}

// uidPrecondition makes a delete or an eviction apply to this very pod, not to a new pod that
// took its name (a StatefulSet's), when its UID is known.
func uidPrecondition(pod *corev1.Pod) *metav1.Preconditions {
	if pod.UID == "" {
		return nil
	}
	uid := pod.UID
	return &metav1.Preconditions{UID: &uid}
}

// replacedError reports that pod is gone although a pod of its name exists (the UID precondition
// failed with err), as a NotFound error: the pod the caller meant no longer exists.
func replacedError(pod *corev1.Pod, err error) error {
	gone := apierrors.NewNotFound(corev1.Resource("pods"), pod.Name)
	gone.ErrStatus.Message = fmt.Sprintf("pod %s with UID %s is gone, replaced by a pod of the same name (%v)", pods.Key(pod), pod.UID, err)
	return gone
}
