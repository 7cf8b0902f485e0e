package scheduling

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/requirements"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// TestClaimLabels: a planned NodeClaim carries the NodePool's label, each single value, and a
// value of each custom label the requirements leave open; labels the instance types define (size)
// or well-known ones (the zone) are left to the launch, and the hostname to the node.
func TestClaimLabels(t *testing.T) {
	types := syntheticTypes(8)
	np := pool("default", 0, types,
		requirements.New("size", corev1.NodeSelectorOpIn, "2", "4", "8"),
		requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"),
		requirements.New("team", corev1.NodeSelectorOpIn, "b", "a"),
		requirements.New("tier", corev1.NodeSelectorOpExists),
		requirements.New("region", corev1.NodeSelectorOpIn, "north"))
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want map[string]string
	}{
		{"open custom labels get a value", pod("p", "1", ""),
			map[string]string{karpv1.NodePoolLabelKey: "default", "team": "a", "tier": "0", "region": "north"}},
		{"a pod's choice narrows them", pod("p", "1", "", withNodeSelector("team", "b", "size", "4")),
			map[string]string{karpv1.NodePoolLabelKey: "default", "team": "b", "tier": "0", "region": "north", "size": "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{np}, Pods: []*corev1.Pod{tc.pod}})
			if len(r.NewNodeClaims) != 1 {
				t.Fatalf("%d nodeclaims, unschedulable %v", len(r.NewNodeClaims), r.Unschedulable)
			}
			got := r.NewNodeClaims[0].Labels
			if !maps.Equal(got, tc.want) {
				t.Errorf("labels %v, want %v", got, tc.want)
			}
		})
	}
}
