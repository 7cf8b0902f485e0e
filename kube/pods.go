package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
)

// DeletePod deletes pod with a grace period in seconds (nil: the pod's own), bypassing
// PodDisruptionBudgets: for pods the Eviction API cannot evict, and for forced terminations. A
// pod that is gone, or was replaced by a pod of the same name, returns an error that
// apierrors.IsNotFound recognises.
func (w *Writer) DeletePod(ctx context.Context, pod *corev1.Pod, gracePeriodSeconds *int64) error {
	opts := metav1.DeleteOptions{GracePeriodSeconds: gracePeriodSeconds, Preconditions: uidPrecondition(pod)}
	err := w.kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, opts)
	switch {
	case err == nil:
		return nil
	case apierrors.IsConflict(err) && pod.UID != "":
		return fmt.Errorf("delete pod %s: %w", pods.Key(pod), replacedError(pod, err))
	default:
		return fmt.Errorf("delete pod %s: %w", pods.Key(pod), err)
	}
}
