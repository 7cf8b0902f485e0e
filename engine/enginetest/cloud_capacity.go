package enginetest

import (
	"context"
	"slices"
	"time"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// OfferingKey names an offering: an instance type in a zone at a capacity type. As a pattern
// (InjectInsufficientCapacity) an empty field matches any value.
type OfferingKey struct {
	InstanceType string
	Zone         string
	CapacityType string
}

// String is "capacity-type:instance-type:zone", as InsufficientCapacityError lists offerings.
func (k OfferingKey) String() string { return k.CapacityType + ":" + k.InstanceType + ":" + k.Zone }

// matches reports whether the pattern k covers the offering o.
func (k OfferingKey) matches(o OfferingKey) bool {
	return (k.InstanceType == "" || k.InstanceType == o.InstanceType) && (k.Zone == "" || k.Zone == o.Zone) &&
		(k.CapacityType == "" || k.CapacityType == o.CapacityType)
}

// InjectInsufficientCapacity makes launches of the offerings the patterns cover fail with
// insufficient capacity until ClearInsufficientCapacity. Each failed offering is then reported
// unavailable by InstanceTypes for UnavailableFor.
func (c *Cloud) InjectInsufficientCapacity(patterns ...OfferingKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ice = append(c.ice, patterns...)
}

// ClearInsufficientCapacity ends every injected capacity shortage (offerings already marked
// unavailable stay so until their time is up).
func (c *Cloud) ClearInsufficientCapacity() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ice = nil
}

// short reports whether an injected shortage covers the offering; the caller holds the lock.
func (c *Cloud) short(o OfferingKey) bool {
	return slices.ContainsFunc(c.ice, func(k OfferingKey) bool { return k.matches(o) })
}

// markUnavailable records that an offering failed or was interrupted; the caller holds the lock.
func (c *Cloud) markUnavailable(o OfferingKey, now time.Time) {
	c.version++
	c.unavailable[o] = now.Add(UnavailableFor)
}

// isUnavailable reports whether an offering is marked unavailable at now; the caller holds the lock.
func (c *Cloud) isUnavailable(o OfferingKey, now time.Time) bool {
	until, ok := c.unavailable[o]
	return ok && now.Before(until)
}

// InstanceTypes returns every type of the cloud, whatever the NodePool, as copies whose
// offerings are unavailable while a capacity error or a spot interruption marked them so.
func (c *Cloud) InstanceTypes(ctx context.Context, _ *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	defer c.end("InstanceTypes")
	if err := c.begin(ctx, "InstanceTypes"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	return withOfferings(c.types, func(k OfferingKey, o *cloudprovider.Offering) {
		if c.isUnavailable(k, now) {
			o.Available = false
		}
	}), nil
}

// withOfferings returns copies of types, each offering (a copy too) changed by change; types are
// left as they were.
func withOfferings(types []*cloudprovider.InstanceType, change func(OfferingKey, *cloudprovider.Offering)) []*cloudprovider.InstanceType {
	out := make([]*cloudprovider.InstanceType, len(types))
	for i, it := range types {
		cp := *it
		cp.Offerings = slices.Clone(it.Offerings)
		for j := range cp.Offerings {
			o := &cp.Offerings[j]
			change(OfferingKey{InstanceType: it.Name, Zone: o.Zone, CapacityType: o.CapacityType}, o)
		}
		out[i] = &cp
	}
	return out
}
