package uitest

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// outcome is the provisioner's last pass over the pending pods: every third pod fits nowhere,
// the next is planned on a new spot NodeClaim, the third was not seen yet.
func (g *generator) outcome(w world) *provisioning.Outcome {
	r := &scheduling.Results{}
	planned := &scheduling.NodeClaim{NodePool: "default", InstanceType: &cloudprovider.InstanceType{Name: "m6i.xlarge"},
		Offering: cloudprovider.Offering{Zone: "us-east-1b", CapacityType: "spot", Price: 0.0672}}
	for k, p := range w.pending {
		switch k % 3 {
		case 0:
			r.Unschedulable = append(r.Unschedulable, podError(p))
		case 1:
			planned.Pods = append(planned.Pods, p)
		}
	}
	if len(planned.Pods) > 0 {
		r.NewNodeClaims = append(r.NewNodeClaims, planned)
	}
	return &provisioning.Outcome{Time: g.now.Add(-5 * time.Second), Results: r}
}

// podError is the explainer's report on a pod asking for 4 CPUs and 8Gi.
func podError(p *corev1.Pod) *scheduling.PodError {
	return &scheduling.PodError{Pod: p, Reasons: []scheduling.Reason{
		{NodePool: "gpu", Code: scheduling.ReasonTaintNotTolerated,
			Message: "its nodes are tainted nvidia.com/gpu:NoSchedule and the pod does not tolerate that",
			Hint:    "add a toleration for nvidia.com/gpu:NoSchedule to the pod, or let another NodePool take it"},
		{NodePool: "on-demand", Code: scheduling.ReasonLimitExceeded,
			Message:  "the NodePool's limits are reached: cpu limit 200, 196 in use, 0 planned in this pass, the smallest fitting type (m6i.xlarge) adds 4",
			Hint:     "raise the NodePool's limits or free capacity in it",
			Excluded: map[string]int{scheduling.ExcludedByLimits: 2, scheduling.ExcludedTooSmall: 6}},
		{NodePool: "default", Code: scheduling.ReasonInsufficientResources,
			Message: "no instance type is large enough for the pod's cpu 4, memory 8Gi: of the 6 types it could use, the most cpu any offers is 3920m (after DaemonSet overhead)",
			Hint:    "lower the pod's requests or allow larger instance types",
			Excluded: map[string]int{scheduling.ExcludedTooSmall: 6, "excluded by the NodePool's requirement on karpenter.k8s.aws/instance-family": 712,
				scheduling.ExcludedByOffering: 31}},
	}}
}
