package scheduling

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
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

// Unlaunchable says why np cannot launch nodes for pending pods at all, given the cloud provider's
// node class kind (EC2NodeClass) and which node classes exist; ok is false when it can. A static NodePool still launches its replicas (see
// provisioning.Static), so only a broken one is reported as broken. The live provisioner and plan both ask it, so a NodePool left
// out is left out for the same reason, in the same words, in both.
func Unlaunchable(np *karpv1.NodePool, class schema.GroupKind, classExists func(name string) bool) (r Reason, ok bool) {
	ref := np.Spec.Template.Spec.NodeClassRef
	r = Reason{NodePool: np.Name}
	switch {
	case np.DeletionTimestamp != nil:
		r.Code, r.Message, r.Hint = ReasonNodePoolDeleting, "is being deleted", "pods need another NodePool"
	case ref == nil:
		r.Code, r.Message, r.Hint = ReasonNodeClassNotFound, "has no "+nodeClassRefPath, "set "+nodeClassRefPath+" to an "+class.Kind
	case ref.Kind != class.Kind || (ref.Group != "" && ref.Group != class.Group):
		r.Code, r.Message = ReasonNodeClassNotFound, fmt.Sprintf("references a %s %q, not an %s of %s", ref.Kind, ref.Name, class.Kind, class.Group)
		r.Hint = fmt.Sprintf("set %s to group: %s, kind: %s", nodeClassRefPath, class.Group, class.Kind)
	case !classExists(ref.Name):
		r.Code, r.Message = ReasonNodeClassNotFound, fmt.Sprintf("references %s %q, which does not exist", class.Kind, ref.Name)
		r.Hint = fmt.Sprintf("create %s %q, or point %s at one that exists", class.Kind, ref.Name, nodeClassRefPath)
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
