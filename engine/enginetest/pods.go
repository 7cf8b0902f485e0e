package enginetest

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/pods"
)

// defaultGracePeriodSeconds is a pod's terminationGracePeriodSeconds when it sets none.
const defaultGracePeriodSeconds = 30

// CreatePod stores a pod as given (status included, phase Pending when unset), for tests that
// seed pods; generateName and the namespace "default" apply when unset.
func (a *API) CreatePod(ctx context.Context, pod *corev1.Pod) (*corev1.Pod, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pod = pod.DeepCopy()
	if pod.Status.Phase == "" {
		pod.Status.Phase = corev1.PodPending
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return create(a, a.pods, pod)
}

// Pod returns a copy of a pod, or a NotFound error.
func (a *API) Pod(namespace, name string) (*corev1.Pod, error) {
	return copyOf(a, a.pods, types.NamespacedName{Namespace: namespace, Name: name})
}

// Pods returns copies of every pod, ordered by namespace and name.
func (a *API) Pods() []*corev1.Pod { return listOf(a, a.pods) }

// UpdatePod changes a pod's metadata and spec. The node a pod is bound to cannot change: Bind
// sets it once.
func (a *API) UpdatePod(ctx context.Context, namespace, name string, mutate func(*corev1.Pod) error) (*corev1.Pod, error) {
	return update(ctx, a, a.pods, types.NamespacedName{Namespace: namespace, Name: name}, mutate,
		func(stored, m *corev1.Pod) (*corev1.Pod, error) {
			if err := keepServerMeta(a.pods.resource, stored, m); err != nil {
				return nil, err
			}
			if m.Spec.NodeName != stored.Spec.NodeName {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s/%s: spec.nodeName is set by binding only", namespace, name))
			}
			m.Status = stored.Status
			return m, nil
		})
}

// UpdatePodStatus changes a pod's status, as the kubelet and the scheduler do.
func (a *API) UpdatePodStatus(ctx context.Context, namespace, name string, mutate func(*corev1.Pod) error) (*corev1.Pod, error) {
	return update(ctx, a, a.pods, types.NamespacedName{Namespace: namespace, Name: name}, mutate,
		func(stored, m *corev1.Pod) (*corev1.Pod, error) {
			out := stored.DeepCopy()
			out.Status = m.Status
			return out, nil
		})
}

// Bind binds a pending pod to a node, as the scheduler's binding does: it sets spec.nodeName
// and the PodScheduled condition, and clears the nominated node. Binding a pod that is bound
// already, or being deleted, is a Conflict.
func (a *API) Bind(ctx context.Context, namespace, name, node string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	key := types.NamespacedName{Namespace: namespace, Name: name}
	cur, err := a.pods.get(key)
	if err != nil {
		return err
	}
	if cur.Spec.NodeName != "" || cur.DeletionTimestamp != nil {
		return apierrors.NewConflict(a.pods.resource, name, fmt.Errorf("pod %s/%s is already bound to %q or being deleted", namespace, name, cur.Spec.NodeName))
	}
	next := cur.DeepCopy()
	next.Spec.NodeName = node
	next.Status.NominatedNodeName = ""
	setPodCondition(next, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, a.clock.Now())
	put(a, a.pods, next)
	return nil
}

// DeletePod deletes a pod with a grace period (nil: the pod's own, 30 s when it sets none).
// A pod bound to a node is only marked (deletionTimestamp in grace seconds) until the kubelet
// finishes it; an unbound or finished pod, or a zero grace period, removes it at once.
func (a *API) DeletePod(ctx context.Context, pod *corev1.Pod, gracePeriodSeconds *int64) error {
	_, err := call(ctx, a, OpDeletePod, func() (struct{}, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		return struct{}{}, a.deletePodLocked(pods.Key(pod), gracePeriodSeconds)
	})
	return err
}

// deletePod deletes a pod without fault injection, for the kubelet and the controllers.
func (a *API) deletePod(key types.NamespacedName, gracePeriodSeconds *int64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.deletePodLocked(key, gracePeriodSeconds)
}

// deletePodLocked is the API server's graceful pod deletion; the caller holds the lock.
func (a *API) deletePodLocked(key types.NamespacedName, gracePeriodSeconds *int64) error {
	cur, err := a.pods.get(key)
	if err != nil {
		return err
	}
	grace := int64(defaultGracePeriodSeconds)
	if cur.Spec.TerminationGracePeriodSeconds != nil {
		grace = *cur.Spec.TerminationGracePeriodSeconds
	}
	if gracePeriodSeconds != nil {
		grace = *gracePeriodSeconds
	}
	if cur.Spec.NodeName == "" || pods.IsTerminal(cur) || grace < 0 {
		grace = 0
	}
	now := a.clock.Now()
	deadline := now.Add(time.Duration(grace) * time.Second)
	if grace == 0 && len(cur.Finalizers) == 0 {
		remove(a, a.pods, cur)
		return nil
	}
	if cur.DeletionTimestamp != nil && !deadline.Before(cur.DeletionTimestamp.Time) {
		return nil // a deletion at least as quick is under way
	}
	next := cur.DeepCopy()
	next.DeletionTimestamp = &metav1.Time{Time: deadline}
	next.DeletionGracePeriodSeconds = &grace
	put(a, a.pods, next)
	return nil
}

// setPodCondition sets a condition, keeping its transition time when its status is unchanged.
func setPodCondition(p *corev1.Pod, c corev1.PodCondition, now time.Time) {
	c.LastTransitionTime = metav1.NewTime(now)
	for i, old := range p.Status.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		p.Status.Conditions[i] = c
		return
	}
	p.Status.Conditions = append(p.Status.Conditions, c)
}
