package lifecycle

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// TestShapeIssues: the node's capacity against the NodeClaim's, as Karpenter's consistency check
// compares them: only requested resources, an issue below 90%.
func TestShapeIssues(t *testing.T) {
	list := func(kv ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		name                      string
		requests, expected, found corev1.ResourceList
		want                      []string
	}{
		{"as expected", list("cpu", "1"), list("cpu", "4"), list("cpu", "4"), nil},
		{"within 90%", list("memory", "1Gi"), list("memory", "16Gi"), list("memory", "15Gi"), nil},
		{"short of memory", list("cpu", "1", "memory", "1Gi"), list("cpu", "4", "memory", "16Gi"), list("cpu", "4", "memory", "8Gi"),
			[]string{"expected 16Gi of resource memory, but found 8Gi (50.0% of expected)"}},
		{"not requested", list("cpu", "1"), list("cpu", "4", "memory", "16Gi"), list("cpu", "4", "memory", "1Gi"), nil},
		{"nothing expected", list("nvidia.com/gpu", "1"), list("cpu", "4"), list("cpu", "4"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := &karpv1.NodeClaim{}
			nc.Spec.Resources.Requests, nc.Status.Capacity = tc.requests, tc.expected
			n := &corev1.Node{Status: corev1.NodeStatus{Capacity: tc.found}}
			if got := shapeIssues(n, nc); !slices.Equal(got, tc.want) {
				t.Errorf("issues %q, want %q", got, tc.want)
			}
		})
	}
}
