package demo

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// TestLoadShare: the load rises and falls within its bounds over the cycle, and two Deployments
// are not in step.
func TestLoadShare(t *testing.T) {
	start := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	lowest, highest := 1.0, 0.0
	differ := false
	for step := range 60 {
		at := start.Add(time.Duration(step) * loadCycle / 60)
		cpu, mem := loadShare("default/api", at)
		other, _ := loadShare("default/inflate", at)
		if cpu < 0.15-1e-9 || cpu > 0.75+1e-9 || mem < 0.50-1e-9 || mem > 0.70+1e-9 {
			t.Fatalf("at %s: shares cpu %.3f memory %.3f, want 15-75%% and 50-70%%", at, cpu, mem)
		}
		lowest, highest = min(lowest, cpu), max(highest, cpu)
		differ = differ || other != cpu
	}
	if lowest > 0.2 || highest < 0.7 {
		t.Errorf("cpu share spans %.2f-%.2f over a cycle, want it to rise and fall across 15-75%%", lowest, highest)
	}
	if !differ {
		t.Error("two Deployments' loads are in step")
	}
}

func TestUsageAnnotations(t *testing.T) {
	pod := func(req corev1.ResourceList) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: req}}}}}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want map[string]string
	}{
		{"cpu and memory", pod(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")}),
			map[string]string{localcluster.UsageCPUAnnotation: "250m", localcluster.UsageMemoryAnnotation: "256Mi"}},
		{"cpu only", pod(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}),
			map[string]string{localcluster.UsageCPUAnnotation: "500m"}},
		{"no requests", pod(nil), map[string]string{}},
		{"no containers", &corev1.Pod{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := usageAnnotations(tc.pod, 0.5, 0.5)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}
