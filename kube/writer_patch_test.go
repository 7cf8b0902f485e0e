package kube

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// TestMergePatch: the patch carries exactly what mutate changed, conditional on the version read,
// and nothing when mutate changed nothing.
func TestMergePatch(t *testing.T) {
	base := func() *karpv1.NodeClaim {
		return &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "7", Labels: map[string]string{"a": "1"}, Finalizers: []string{karpv1.TerminationFinalizer}},
			Spec: karpv1.NodeClaimSpec{
				ExpireAfter:  karpv1.NewNillableDuration(720 * 60 * 60 * 1e9),
				NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
				Taints:       []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}},
			},
		}
	}
	for _, tc := range []struct {
		name   string
		mutate func(*karpv1.NodeClaim)
		want   string // "" for no patch
	}{
		{"nothing", func(*karpv1.NodeClaim) {}, ""},
		{"label added", func(nc *karpv1.NodeClaim) { nc.Labels["b"] = "2" },
			`{"metadata":{"labels":{"b":"2"},"resourceVersion":"7"}}`},
		{"label removed", func(nc *karpv1.NodeClaim) { delete(nc.Labels, "a") },
			`{"metadata":{"labels":null,"resourceVersion":"7"}}`},
		{"finalizer removed", func(nc *karpv1.NodeClaim) { nc.Finalizers = nil },
			`{"metadata":{"finalizers":null,"resourceVersion":"7"}}`},
		{"status", func(nc *karpv1.NodeClaim) { nc.Status.ProviderID = "aws:///z/i-1" },
			`{"metadata":{"resourceVersion":"7"},"status":{"providerID":"aws:///z/i-1"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := base()
			before, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			tc.mutate(obj)
			after, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			patch, err := mergePatch(before, after, obj.ResourceVersion)
			if err != nil {
				t.Fatal(err)
			}
			if string(patch) != tc.want {
				t.Errorf("patch %s, want %s", patch, tc.want)
			}
		})
	}
}
