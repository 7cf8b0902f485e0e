package plan

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	quota "k8s.io/apiserver/pkg/quota/v1"

	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Limit is one resource a NodePool's limits cap, against what the plan would have the NodePool
// hold.
type Limit struct {
	NodePool string            `json:"nodePool"`
	Resource string            `json:"resource"`
	Limit    resource.Quantity `json:"limit"`
	// Planned is what its existing nodes hold plus the capacity of the NodeClaims the plan
	// launches in it (one each against nodes).
	Planned resource.Quantity `json:"planned"`
	// Reached is true when the NodePool's limits left a pod unplaced.
	Reached bool `json:"reached"`
}

// limits lists every limit of the NodePools planned for, in NodePool and resource order.
func limits(in *scheduling.Input, r *scheduling.Results) []Limit {
	planned := map[string]corev1.ResourceList{}
	for _, nc := range r.NewNodeClaims {
		if nc.InstanceType == nil {
			continue
		}
		held := nc.InstanceType.Capacity.DeepCopy()
		held[karpv1.ResourceNodes] = *resource.NewQuantity(1, resource.DecimalSI)
		planned[nc.NodePool] = quota.Add(planned[nc.NodePool], held)
	}
	reached := map[string]bool{}
	for _, u := range r.Unschedulable {
		for _, reason := range u.Reasons {
			if reason.Code == scheduling.ReasonLimitExceeded {
				reached[reason.NodePool] = true
			}
		}
	}
	var out []Limit
	for _, np := range in.NodePools {
		total := quota.Add(np.Usage, planned[np.Name])
		for _, name := range slices.Sorted(maps.Keys(np.Limits)) {
			out = append(out, Limit{NodePool: np.Name, Resource: string(name), Limit: np.Limits[name],
				Planned: total[name], Reached: reached[np.Name]})
		}
	}
	slices.SortStableFunc(out, func(a, b Limit) int { return strings.Compare(a.NodePool, b.NodePool) })
	return out
}
