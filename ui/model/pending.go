package model

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/ui/render"
)

// pendingOf joins the pending pods with the provisioner's last pass: refused (with the
// explainer's reasons), planned on a new NodeClaim, placed on an existing node, or not yet seen.
func pendingOf(pending []*corev1.Pod, last *provisioning.Outcome) []render.Pending {
	if len(pending) == 0 {
		return nil
	}
	refused := map[string]*scheduling.PodError{}
	planned := map[string]string{}
	if last != nil && last.Results != nil {
		for _, pe := range last.Results.Unschedulable {
			refused[pe.Pod.Namespace+"/"+pe.Pod.Name] = pe
		}
		for _, nc := range last.Results.NewNodeClaims {
			what := fmt.Sprintf("new %s NodeClaim", nc.NodePool)
			if nc.InstanceType != nil {
				what = fmt.Sprintf("new %s %s from %s", nc.Offering.CapacityType, nc.InstanceType.Name, nc.NodePool)
			}
			for _, p := range nc.Pods {
				planned[p.Namespace+"/"+p.Name] = "launching: " + what
			}
		}
		for _, en := range last.Results.ExistingNodes {
			for _, p := range en.Pods {
				planned[p.Namespace+"/"+p.Name] = "nominated to " + en.Name
			}
		}
	}
	out := make([]render.Pending, len(pending))
	for i, p := range pending {
		key := p.Namespace + "/" + p.Name
		out[i] = render.Pending{Pod: p, Why: "waiting for the provisioner's next pass"}
		switch {
		case refused[key] != nil:
			out[i].Why, out[i].Fix = render.PendingWhy(refused[key])
			out[i].Blocked = true
		case planned[key] != "":
			out[i].Why = planned[key]
		}
	}
	return out
}
