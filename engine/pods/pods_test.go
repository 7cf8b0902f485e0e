package pods

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
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
		name    string
		pod     *corev1.Pod
		after   time.Duration
		want    bool
		invalid string // part of InvalidDoNotDisrupt's error, "" when valid
	}{
		{"true blocks", running("true"), 1000 * time.Hour, true, ""},
		{"duration within", running("1h"), 59 * time.Minute, true, ""},
		{"duration past", running("1h"), 61 * time.Minute, false, ""},
		{"false does not", running("false"), 0, false, `failed to parse "false" as a duration`},
		{"garbage does not", running("soon"), 0, false, `failed to parse "soon" as a duration`},
		{"a negative duration does not", running("-5m"), 0, false, `duration "-5m" must be positive`},
		{"finished pod does not", func() *corev1.Pod { p := running("true"); p.Status.Phase = corev1.PodSucceeded; return p }(), 0, false, ""},
	}
	for _, tt := range tests {
		if got := BlocksDisruption(tt.pod, start.Add(tt.after)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		err := InvalidDoNotDisrupt(tt.pod)
		if (err == nil) != (tt.invalid == "") || err != nil && !strings.Contains(err.Error(), tt.invalid) {
			t.Errorf("%s: InvalidDoNotDisrupt = %v, want %q", tt.name, err, tt.invalid)
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

// TestRequestsTakeLimitsForMissingRequests: a limit stands for the request a container leaves
// out, as the API server defaults it; a request set stays; init containers and overhead count.
func TestRequestsTakeLimitsForMissingRequests(t *testing.T) {
	res := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	container := func(requests, limits corev1.ResourceList) corev1.Container {
		return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
	}
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want corev1.ResourceList
	}{
		{"limits only", corev1.PodSpec{Containers: []corev1.Container{container(nil, res("cpu", "2", "memory", "1Gi"))}},
			res("cpu", "2", "memory", "1Gi")},
		{"a GPU in limits only", corev1.PodSpec{Containers: []corev1.Container{container(res("cpu", "1"), res("nvidia.com/gpu", "1"))}},
			res("cpu", "1", "nvidia.com/gpu", "1")},
		{"a request below its limit stays", corev1.PodSpec{Containers: []corev1.Container{container(res("cpu", "500m"), res("cpu", "2"))}},
			res("cpu", "500m")},
		{"neither", corev1.PodSpec{Containers: []corev1.Container{container(nil, nil)}}, res()},
		{"two containers", corev1.PodSpec{Containers: []corev1.Container{container(nil, res("cpu", "1")), container(res("cpu", "250m"), nil)}},
			res("cpu", "1250m")},
		{"an init container's limit, larger than the containers'", corev1.PodSpec{
			InitContainers: []corev1.Container{container(nil, res("memory", "4Gi"))},
			Containers:     []corev1.Container{container(res("memory", "1Gi"), nil)}}, res("memory", "4Gi")},
		{"overhead", corev1.PodSpec{Containers: []corev1.Container{container(nil, res("cpu", "1"))}, Overhead: res("cpu", "100m")},
			res("cpu", "1100m")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &corev1.Pod{Spec: tc.spec}
			before := p.DeepCopy()
			got := Requests(p)
			if len(got) != len(tc.want) {
				t.Fatalf("Requests = %v, want %v", got, tc.want)
			}
			for name, q := range tc.want {
				if g := got[name]; g.Cmp(q) != 0 {
					t.Errorf("%s = %s, want %s", name, g.String(), q.String())
				}
			}
			if !equality.Semantic.DeepEqual(p, before) {
				t.Error("Requests changed the pod")
			}
		})
	}
}

func TestUntoleratedTaint(t *testing.T) {
	noSchedule := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	prefer := corev1.Taint{Key: "spot", Effect: corev1.TaintEffectPreferNoSchedule}
	tier := corev1.Taint{Key: "tier", Value: "5", Effect: corev1.TaintEffectNoExecute}
	exists := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists}
	for _, tc := range []struct {
		name        string
		tolerations []corev1.Toleration
		taints      []corev1.Taint
		only        func(*corev1.Taint) bool
		want        string // the untolerated taint's key, "" for none
	}{
		{name: "no taints", want: ""},
		{name: "untolerated", taints: []corev1.Taint{noSchedule}, want: "dedicated"},
		{name: "tolerated by Exists", tolerations: []corev1.Toleration{exists}, taints: []corev1.Taint{noSchedule}, want: ""},
		{name: "PreferNoSchedule counts for the scheduler", taints: []corev1.Taint{prefer}, want: "spot"},
		{name: "PreferNoSchedule passed over when only repelling taints count", taints: []corev1.Taint{prefer, noSchedule}, only: Repels, want: "dedicated"},
		{name: "Gt compares numbers", tolerations: []corev1.Toleration{{Key: "tier", Operator: corev1.TolerationOpGt, Value: "3"}}, taints: []corev1.Taint{tier}, want: ""},
		{name: "Gt refuses a smaller number", tolerations: []corev1.Toleration{{Key: "tier", Operator: corev1.TolerationOpGt, Value: "7"}}, taints: []corev1.Taint{tier}, want: "tier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if taint := UntoleratedTaint(tc.tolerations, tc.taints, tc.only); taint != nil {
				got = taint.Key
			}
			if got != tc.want {
				t.Errorf("untolerated %q, want %q", got, tc.want)
			}
		})
	}
}

func TestClaimName(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0"}}
	for _, tc := range []struct {
		name   string
		volume corev1.Volume
		want   string
		ok     bool
	}{
		{"a claim", corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-web-0"}}}, "data-web-0", true},
		{"a generic ephemeral volume", corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{
			Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{}}}}, "web-0-scratch", true},
		{"an ephemeral volume without a template", corev1.Volume{Name: "odd", VolumeSource: corev1.VolumeSource{
			Ephemeral: &corev1.EphemeralVolumeSource{}}}, "", false},
		{"an emptyDir", corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := ClaimName(pod, tc.volume); got != tc.want || ok != tc.ok {
				t.Errorf("ClaimName = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
			p := pod.DeepCopy()
			p.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}, tc.volume}
			if got := MountsClaim(p); got != tc.ok {
				t.Errorf("MountsClaim = %v, want %v", got, tc.ok)
			}
		})
	}
}
