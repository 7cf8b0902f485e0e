package uitest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// nodePools are the fake's NodePools: a spot-first default, an on-demand pool with a business
// hours budget that stops drift, and a tainted GPU pool at its CPU limit that never consolidates.
func nodePools(now time.Time) []*karpv1.NodePool {
	created := metav1.NewTime(now.Add(-30 * 24 * time.Hour))
	pool := func(name string, weight int32, capacity []string, cpuLimit, memLimit string, d karpv1.Disruption) *karpv1.NodePool {
		np := &karpv1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: created},
			Spec: karpv1.NodePoolSpec{
				Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
					NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
						{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: capacity},
						{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
					},
					ExpireAfter: karpv1.NewNillableDuration(720 * time.Hour),
				}},
				Disruption: d,
				Limits: karpv1.Limits{corev1.ResourceCPU: resource.MustParse(cpuLimit),
					corev1.ResourceMemory: resource.MustParse(memLimit)},
				Weight: &weight,
			},
			Status: karpv1.NodePoolStatus{Conditions: conditions(created.Time, karpv1.ConditionTypeReady)},
		}
		return np
	}
	hours := "0 9 * * 1-5"
	gpu := pool("gpu", 100, []string{"on-demand"}, "4", "64Gi",
		karpv1.Disruption{ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmpty, ConsolidateAfter: karpv1.NeverDuration(),
			Budgets: []karpv1.Budget{{Nodes: "0"}}})
	gpu.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}}
	return []*karpv1.NodePool{
		pool("default", 10, []string{"spot", "on-demand"}, "1000", "4000Gi",
			karpv1.Disruption{ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter: karpv1.NewNillableDuration(time.Minute), Budgets: []karpv1.Budget{{Nodes: "10%"}}}),
		gpu,
		pool("on-demand", 50, []string{"on-demand"}, "200", "800Gi",
			karpv1.Disruption{ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter: karpv1.NewNillableDuration(5 * time.Minute),
				Budgets: []karpv1.Budget{{Nodes: "20%"}, {Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted},
					Schedule: &hours, Duration: &metav1.Duration{Duration: 8 * time.Hour}}}}),
	}
}
