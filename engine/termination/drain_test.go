package termination

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// TestTier orders a drain as Karpenter's terminator does: non-critical pods first, then
// non-critical DaemonSet pods, then critical pods, then critical DaemonSet pods.
func TestTier(t *testing.T) {
	pod := func(priorityClass string, daemon bool) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{PriorityClassName: priorityClass}}
		if daemon {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", Controller: new(true)}}
		}
		return p
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want int
	}{
		{"a Deployment's pod", pod("", false), 0},
		{"a pod of another priority class", pod("high", false), 0},
		{"a DaemonSet's pod", pod("", true), 1},
		{"a cluster-critical pod", pod("system-cluster-critical", false), 2},
		{"a node-critical pod", pod("system-node-critical", false), 2},
		{"a node-critical DaemonSet pod", pod("system-node-critical", true), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Tier(tc.pod); got != tc.want {
				t.Errorf("Tier = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestForcedGrace: a pod is deleted rather than evicted only when the NodeClaim's
// terminationGracePeriod leaves it no more than its own grace period, and then with what is
// left, so that it ends by the deadline (never a negative grace).
func TestForcedGrace(t *testing.T) {
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	withGrace := func(s int64) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{TerminationGracePeriodSeconds: &s}}
	}
	for _, tc := range []struct {
		name     string
		pod      *corev1.Pod
		deadline time.Time
		grace    int64
		forced   bool
	}{
		{"no deadline", withGrace(30), time.Time{}, 0, false},
		{"time enough for its grace", withGrace(30), now.Add(time.Minute), 0, false},
		{"its grace exactly left", withGrace(60), now.Add(time.Minute), 60, true},
		{"less left than its grace", withGrace(300), now.Add(time.Minute), 60, true},
		{"the default grace (30s), 10s left", &corev1.Pod{}, now.Add(10 * time.Second), 10, true},
		{"the default grace, a minute left", &corev1.Pod{}, now.Add(time.Minute), 0, false},
		{"past the deadline", withGrace(30), now.Add(-time.Minute), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			grace, forced := forcedGrace(tc.pod, tc.deadline, now)
			if grace != tc.grace || forced != tc.forced {
				t.Errorf("forcedGrace = %d, %v; want %d, %v", grace, forced, tc.grace, tc.forced)
			}
		})
	}
}

// TestDeadline: a drain has a deadline only once the NodeClaim is being deleted and has a
// terminationGracePeriod; it is the deletion plus that period.
func TestDeadline(t *testing.T) {
	deleted := metav1.NewTime(time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC))
	period := &metav1.Duration{Duration: 2 * time.Hour}
	for _, tc := range []struct {
		name    string
		deleted *metav1.Time
		period  *metav1.Duration
		want    time.Time
	}{
		{"not being deleted", nil, period, time.Time{}},
		{"no terminationGracePeriod", &deleted, nil, time.Time{}},
		{"both", &deleted, period, deleted.Add(2 * time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: tc.deleted}}
			nc.Spec.TerminationGracePeriod = tc.period
			if got := Deadline(nc); !got.Equal(tc.want) {
				t.Errorf("Deadline = %v, want %v", got, tc.want)
			}
		})
	}
}
