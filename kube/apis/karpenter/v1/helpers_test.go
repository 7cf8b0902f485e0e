package v1

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validNodePool returns a defaulted NodePool that passes validation.
func validNodePool() *NodePool {
	np := &NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "general"},
		Spec: NodePoolSpec{
			Template: NodeClaimTemplate{
				ObjectMeta: ObjectMeta{Labels: map[string]string{"team": "web"}},
				Spec: NodeClaimTemplateSpec{
					Requirements: []NodeSelectorRequirementWithMinValues{
						{Key: CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}},
						{Key: "karpenter.k8s.aws/instance-generation", Operator: corev1.NodeSelectorOpGt, Values: []string{"5"}},
					},
					Taints:       []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}},
					NodeClassRef: &NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
				},
			},
		},
	}
	np.SetDefaults()
	return np
}

// messages renders errors as "path: detail", the way the manifest loader reports them.
func messages(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Detail)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func duration(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
