package cloudprovider

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	"github.com/nodepilot/nodepilot/engine/requirements"
)

// Capacity types, as Karpenter labels them (karpenter.sh/capacity-type).
const ()

// Offering is one way to buy an instance type: a zone and a capacity type, at a price.
type Offering struct {
	Zone         string
	CapacityType string
	// Price is in US dollars per hour.
	Price float64
	// Available is false while the cloud reports no capacity for it.
	Available bool
	// PriceSource says where Price came from, so that nobody mistakes an estimate for a quote.
	PriceSource PriceSource
}

// PriceSource names the origin of a price and when it was read.
type PriceSource struct {
	// Kind is one of the PriceKind constants.
	Kind string
	// AsOf is when the price was read or generated (zero for built-in tables).
	AsOf time.Time
}

// Kinds of price source.
const (
	// PriceCatalog is the on-demand list price of the embedded catalog.
	PriceCatalog = "catalog"
	// PricePricingAPI is an on-demand price read from the AWS Pricing API.
	PricePricingAPI = "pricing-api"
	// PriceSpotHistory is a spot price read from DescribeSpotPriceHistory.
	PriceSpotHistory = "spot-price-history"
	// PriceSynthetic is a made-up but deterministic spot price: no public spot data exists.
	PriceSynthetic = "synthetic"
)

// Synthetic reports whether the price is an estimate that must be labelled as such.
func (p PriceSource) Synthetic() bool { return p.Kind == PriceSynthetic }

// Offerings are the offerings of one instance type.
type Offerings []Offering

// Compatible returns the available offerings whose zone and capacity type reqs allow.
func (ofs Offerings) Compatible(reqs requirements.Requirements) Offerings {
	zones, cts := reqs.Get(corev1.LabelTopologyZone), reqs.Get(karpv1.CapacityTypeLabelKey)
	var out Offerings
	for _, o := range ofs {
		if o.Available && allows(zones, o.Zone) && allows(cts, o.CapacityType) {
			out = append(out, o)
		}
	}
	return out
}

// HasCompatible reports whether some available offering fits reqs, without allocating.
func (ofs Offerings) HasCompatible(reqs requirements.Requirements) bool {
	zones, cts := reqs.Get(corev1.LabelTopologyZone), reqs.Get(karpv1.CapacityTypeLabelKey)
	for _, o := range ofs {
		if o.Available && allows(zones, o.Zone) && allows(cts, o.CapacityType) {
			return true
		}
	}
	return false
}

// Cheapest returns the cheapest offering, preferring spot when any spot offering is present,
// as Karpenter launches spot whenever the NodeClaim allows it. ok is false when ofs is empty.
func (ofs Offerings) Cheapest() (o Offering, ok bool) {
	best := -1
	for i, c := range ofs {
		if best < 0 || better(c, ofs[best]) {
			best = i
		}
	}
	if best < 0 {
		return Offering{}, false
	}
	return ofs[best], true
}

func better(a, b Offering) bool {
	aSpot, bSpot := a.CapacityType == karpv1.CapacityTypeSpot, b.CapacityType == karpv1.CapacityTypeSpot
	if aSpot != bSpot {
		return aSpot
	}
	if a.Price != b.Price {
		return a.Price < b.Price
	}
	return a.Zone < b.Zone
}

// Zones lists the distinct zones of the offerings, sorted.
func (ofs Offerings) Zones() []string {
	var zones []string
	for _, o := range ofs {
		zones = append(zones, o.Zone)
	}
	slices.Sort(zones)
	return slices.Compact(zones)
}

func allows(r *requirements.Requirement, v string) bool { return r == nil || r.Has(v) }
