package ui

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/journal"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/ui/render"
)

// selection is what an action acts on: the object under the cursor, resolved.
type selection struct {
	node, claim string
	spot        bool
	pod         *corev1.Pod
	pool        *karpv1.NodePool
	entry       *journal.Entry
	skin        string
	context     string
}

// selectionOf resolves a row's object.
func selectionOf(r *render.Row) selection {
	var s selection
	if r == nil {
		return s
	}
	switch o := r.Ref.(type) {
	case *render.Node:
		s.node, s.spot = o.Name, o.CapacityType == "spot"
		if o.State.NodeClaim != nil {
			s.claim = o.State.NodeClaim.Name
		}
		if o.State.Node == nil {
			s.node = ""
		}
	case *karpv1.NodeClaim:
		s.node, s.claim, s.spot = o.Status.NodeName, o.Name, o.Labels[karpv1.CapacityTypeLabelKey] == "spot"
	case *corev1.Pod:
		s.pod = o
	case *karpv1.NodePool:
		s.pool = o
	case *journal.Entry:
		s.entry = o
	case render.SkinName:
		s.skin = string(o)
	case render.ContextName:
		s.context = string(o)
	}
	return s
}

// deploymentOf names the Deployment a pod belongs to ("namespace/name"): its ReplicaSet's name
// without the pod-template-hash.
func deploymentOf(p *corev1.Pod) string {
	for _, o := range p.OwnerReferences {
		if o.Kind == "ReplicaSet" {
			name := strings.TrimSuffix(o.Name, "-"+p.Labels["pod-template-hash"])
			return p.Namespace + "/" + name
		}
	}
	return ""
}
