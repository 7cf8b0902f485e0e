package cost

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Types finds instance types by name (a NodePool's, or any known).
type Types func(nodePool, instanceType string) *cloudprovider.InstanceType

// Price is what a node costs per hour and where the figure comes from.
type Price struct {
	PerHour      float64
	Source       cloudprovider.PriceSource
	InstanceType string
	Zone         string
	CapacityType string
}

// Offering is the price of an instance type's offering in a zone and capacity type. An
// offering marked unavailable still counts: a machine running on it costs that much.
func Offering(it *cloudprovider.InstanceType, zone, capacityType string) (cloudprovider.Offering, bool) {
	if it == nil {
		return cloudprovider.Offering{}, false
	}
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o, true
		}
	}
	return cloudprovider.Offering{}, false
}

// Node prices a node by its instance type, zone and capacity type labels; ok is false when any is
// unknown (an unmanaged node of a type the cloud does not list).
func Node(sn *state.Node, types Types) (Price, bool) {
	l := sn.Labels()
	p := Price{InstanceType: l[corev1.LabelInstanceTypeStable], Zone: l[corev1.LabelTopologyZone], CapacityType: l[karpv1.CapacityTypeLabelKey]}
	o, ok := Offering(types(sn.NodePool(), p.InstanceType), p.Zone, p.CapacityType)
	if !ok {
		return p, false
	}
	p.PerHour, p.Source = o.Price, o.PriceSource
	return p, true
}

// Summary is the cost of a group of nodes.
type Summary struct {
	Nodes   int
	PerHour float64
	// Unpriced counts nodes whose price is unknown (left out of PerHour).
	Unpriced int
	// Synthetic is true when some price in PerHour is a synthetic estimate.
	Synthetic bool
}

func (s *Summary) add(p Price, ok bool) {
	s.Nodes++
	if !ok {
		s.Unpriced++
		return
	}
	s.PerHour += p.PerHour
	s.Synthetic = s.Synthetic || p.Source.Synthetic()
}

// Fleet sums the cost of a snapshot's nodes: in total, per NodePool ("" for nodes without one)
// and per capacity type. A node belongs to the NodePool and capacity type its labels name, the
// NodePool as state.Snapshot.PoolUsage counts it.
type Fleet struct {
	Total          Summary
	ByNodePool     map[string]*Summary
	ByCapacityType map[string]*Summary
}

// NewFleet returns an empty Fleet to Add nodes to.
func NewFleet() Fleet {
	return Fleet{ByNodePool: map[string]*Summary{}, ByCapacityType: map[string]*Summary{}}
}

// Add counts a node at its price; ok false counts it unpriced. Callers that price nodes their
// own way (the console, through its backend) sum them here, so every total groups nodes alike.
func (f *Fleet) Add(sn *state.Node, p Price, ok bool) {
	capacityType, _ := sn.Placement()
	f.Total.add(p, ok)
	group(f.ByNodePool, sn.NodePool()).add(p, ok)
	group(f.ByCapacityType, capacityType).add(p, ok)
}

// FleetOf prices every node of a snapshot.
func FleetOf(snap *state.Snapshot, types Types) Fleet {
	f := NewFleet()
	for _, sn := range snap.Nodes {
		p, ok := Node(sn, types)
		f.Add(sn, p, ok)
	}
	return f
}

func group(m map[string]*Summary, key string) *Summary {
	if m[key] == nil {
		m[key] = &Summary{}
	}
	return m[key]
}
