package provisioning

import (
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
)

// StaticNodeClaim is what a static NodePool launches for one replica, by its catalog entry: its
// template with no pods, priced at the offering the cloud would most likely buy. It is nil when
// no instance type of the NodePool has an available offering that holds its DaemonSets.
// NodeClaimFor writes it without instance types, as Karpenter does.
func StaticNodeClaim(snap *state.Snapshot, pt *PoolTypes, wellKnown []string) *scheduling.NodeClaim {
	in := &scheduling.Input{NodePools: []scheduling.NodePool{scheduling.FromNodePool(pt.NodePool, pt.Types, nil)},
		DaemonSets: snap.DaemonSets, WellKnownLabels: wellKnown, Options: scheduling.DefaultOptions()}
	return scheduling.Prepare(in).Empty(pt.NodePool.Name)
}
