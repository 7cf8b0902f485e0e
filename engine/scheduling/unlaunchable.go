package scheduling

import (
	"fmt"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// Reason codes of a NodePool that cannot launch at all (Input.Unlaunchable). NodeClassNotFound is
// the reason Karpenter gives its NodePool's NodeClassReady condition in the same case.
const (
	ReasonNodeClassNotFound   = "NodeClassNotFound"
	ReasonInstanceTypesFailed = "InstanceTypesFailed"
	ReasonNodePoolDeleting    = "NodePoolDeleting"
	ReasonStaticNodePool      = "StaticNodePool"
)

const nodeClassRefPath = "spec.template.spec.nodeClassRef"

// Unlaunchable says why np cannot launch nodes for pending pods at all, given which EC2NodeClasses
// exist; ok is false when it can. A static NodePool still launches its replicas (see
// provisioning.Static), so only a broken one is reported as broken. The live provisioner and plan both ask it, so a NodePool left
// out is left out for the same reason, in the same words, in both.
func Unlaunchable(np *karpv1.NodePool, classExists func(name string) bool) (r Reason, ok bool) {
	ref := np.Spec.Template.Spec.NodeClassRef
	r = Reason{NodePool: np.Name}
	switch {
	case np.DeletionTimestamp != nil:
		r.Code, r.Message, r.Hint = ReasonNodePoolDeleting, "is being deleted", "pods need another NodePool"
	case ref == nil:
		r.Code, r.Message, r.Hint = ReasonNodeClassNotFound, "has no "+nodeClassRefPath, "set "+nodeClassRefPath+" to an EC2NodeClass"
	case ref.Kind != awsv1.KindEC2NodeClass || (ref.Group != "" && ref.Group != awsv1.Group):
		r.Code, r.Message = ReasonNodeClassNotFound, fmt.Sprintf("references a %s %q, not an %s of %s", ref.Kind, ref.Name, awsv1.KindEC2NodeClass, awsv1.Group)
		r.Hint = fmt.Sprintf("set %s to group: %s, kind: %s", nodeClassRefPath, awsv1.Group, awsv1.KindEC2NodeClass)
	case !classExists(ref.Name):
		r.Code, r.Message = ReasonNodeClassNotFound, fmt.Sprintf("references EC2NodeClass %q, which does not exist", ref.Name)
		r.Hint = fmt.Sprintf("create EC2NodeClass %q, or point %s at one that exists", ref.Name, nodeClassRefPath)
	case np.IsStatic():
		r.Code, r.Message = ReasonStaticNodePool, fmt.Sprintf("is static (replicas: %d): it keeps that many nodes and launches none for pods", *np.Spec.Replicas)
		r.Hint = "pods fit its existing nodes or need a NodePool without replicas"
	default:
		return Reason{}, false
	}
	r.Message = fmt.Sprintf("NodePool %q %s", np.Name, r.Message)
	return r, true
}

// InstanceTypesFailed is the reason of a NodePool whose instance types could not be listed.
func InstanceTypesFailed(pool string, err error) Reason {
	return Reason{NodePool: pool, Code: ReasonInstanceTypesFailed,
		Message: fmt.Sprintf("NodePool %q cannot launch: listing its instance types failed: %v", pool, err),
		Hint:    "see the EC2NodeClass's status conditions and nodepilot's log; it is retried on the next pass"}
}
