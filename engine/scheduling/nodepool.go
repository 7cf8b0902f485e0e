package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// FromNodePool is what a NodePool contributes to a solve, as Karpenter builds its NodeClaim
// template: the requirements (with minValues), the template labels, karpenter.sh/nodepool and
// the node class's label (karpenter.k8s.aws/ec2nodeclass) as single-valued requirements, the taints, and the limits against the capacity it holds (usage).
func FromNodePool(np *karpv1.NodePool, types []*cloudprovider.InstanceType, usage corev1.ResourceList) NodePool {
	labels := map[string]string{}
	for k, v := range np.Spec.Template.Labels {
		labels[k] = v
	}
	labels[karpv1.NodePoolLabelKey] = np.Name
	if ref := np.Spec.Template.Spec.NodeClassRef; ref != nil {
		labels[karpv1.NodeClassLabelKey(ref.Group, ref.Kind)] = ref.Name
	}
	reqs := make([]*requirements.Requirement, 0, len(np.Spec.Template.Spec.Requirements))
	for _, r := range np.Spec.Template.Spec.Requirements {
		reqs = append(reqs, requirements.New(r.Key, r.Operator, r.Values...).WithMinValues(r.MinValues))
	}
	var weight int32
	if np.Spec.Weight != nil {
		weight = *np.Spec.Weight
	}
	return NodePool{
		Name:          np.Name,
		Weight:        weight,
		Requirements:  requirements.Of(reqs...).Merge(requirements.FromLabels(labels)),
		Labels:        labels,
		Taints:        np.Spec.Template.Spec.Taints,
		StartupTaints: np.Spec.Template.Spec.StartupTaints,
		Limits:        corev1.ResourceList(np.Spec.Limits),
		Usage:         usage,
		InstanceTypes: types,
	}
}
