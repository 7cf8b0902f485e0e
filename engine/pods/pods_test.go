package pods

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func pending(mut ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}}
	for _, m := range mut {
		m(p)
	}
	return p
}

func TestIsProvisionable(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"unschedulable", pending(), true},
		{"bound", pending(func(p *corev1.Pod) { p.Spec.NodeName = "n" }), false},
		{"nominated", pending(func(p *corev1.Pod) { p.Status.NominatedNodeName = "n" }), false},
		{"not yet tried", pending(func(p *corev1.Pod) { p.Status.Conditions = nil }), false},
		{"scheduling gated", pending(func(p *corev1.Pod) { p.Status.Conditions[0].Reason = corev1.PodReasonSchedulingGated }), false},
		{"daemonset", pending(func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", Controller: ptr.To(true)}}
		}), false},
		{"mirror", pending(func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"} }), false},
		{"terminating", pending(func(p *corev1.Pod) { p.DeletionTimestamp = &now }), false},
		{"failed", pending(func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }), false},
	}
	for _, tt := range tests {
		if got := IsProvisionable(tt.pod); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDoNotDisrupt(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	running := func(value string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"karpenter.sh/do-not-disrupt": value}},
			Spec:   corev1.PodSpec{NodeName: "n"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: start}}}
	}
	tests := []struct {
		name  string
		pod   *corev1.Pod
		after time.Duration
		want  bool
	}{
		{"true blocks", running("true"), 1000 * time.Hour, true},
		{"duration within", running("1h"), 59 * time.Minute, true},
		{"duration past", running("1h"), 61 * time.Minute, false},
		{"false does not", running("false"), 0, false},
		{"garbage does not", running("soon"), 0, false},
		{"finished pod does not", func() *corev1.Pod { p := running("true"); p.Status.Phase = corev1.PodSucceeded; return p }(), 0, false},
	}
	for _, tt := range tests {
		if got := BlocksDisruption(tt.pod, start.Add(tt.after)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIsEvictable(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"running", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}, true},
		{"static", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{Kind: "Node", Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}, false},
		{"tolerates disrupted", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "n", Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}, false},
		{"done", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, false},
	}
	for _, tt := range tests {
		if got := IsEvictable(tt.pod); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
