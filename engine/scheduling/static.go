package scheduling

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// StaticNodeClaim is what a static NodePool launches for one replica, as Karpenter's static
// provisioning does: its template with no pods, the instance types that hold its DaemonSets
// (cheapest first), and the offering the cloud would most likely buy. It is nil when none of the
// types has an available offering. (The NodeClaim object names no instance types: the cloud
// provider launches the cheapest that meets the template.)
func StaticNodeClaim(np *karpv1.NodePool, types []*cloudprovider.InstanceType, daemonSets []*appsv1.DaemonSet, wellKnown []string) *NodeClaim {
	p := Prepare(&Input{NodePools: []NodePool{FromNodePool(np, types, nil)}, DaemonSets: daemonSets,
		WellKnownLabels: wellKnown, Options: DefaultOptions()})
	s := newScheduler(p, nil, nil)
	nc := newNodeClaim(s, p.templates[0])
	if nc.types.count() == 0 {
		return nil
	}
	if out := s.nodeClaimResult(nc); out.Offering.Available {
		return out
	}
	return nil
}

// AsNode is a planned NodeClaim as a node later pods may go to, named name: its labels, those
// its instance type and its offering fix, its taints, the type's allocatable, and
// its DaemonSets' pods already requested.
func (nc *NodeClaim) AsNode(name string) ExistingNode {
	labels := maps.Clone(nc.Labels)
	maps.Copy(labels, nc.InstanceType.Requirements.Labels())
	maps.Copy(labels, map[string]string{corev1.LabelHostname: name, corev1.LabelTopologyZone: nc.Offering.Zone,
		karpv1.CapacityTypeLabelKey: nc.Offering.CapacityType})
	requested := maps.Clone(nc.DaemonSetOverhead)
	if requested == nil {
		requested = corev1.ResourceList{}
	}
	return ExistingNode{Name: name, Labels: labels, Taints: nc.Taints, Allocatable: nc.InstanceType.Allocatable(),
		Requested: requested, Initialized: true}
}

// StaticNodeName names the nth (from 1) planned node of a static NodePool.
func StaticNodeName(pool string, n int) string { return fmt.Sprintf("%s-static-%05d", pool, n) }
