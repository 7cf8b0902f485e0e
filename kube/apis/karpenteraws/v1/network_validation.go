package v1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Interface types of a NetworkInterface.
const (
	InterfaceTypeInterface InterfaceType = "interface"
	InterfaceTypeEFAOnly   InterfaceType = "efa-only"
)

// validateNetworking checks the placement group, network interface, connection tracking, IP
// prefix and CPU options of a spec, as the CRD does.
func validateNetworking(spec *field.Path, s *EC2NodeClassSpec) field.ErrorList {
	var errs field.ErrorList
	if pg := s.PlacementGroupSelector; pg != nil {
		p := spec.Child("placementGroupSelector")
		switch {
		case pg.Name == nil && pg.ID == nil:
			errs = append(errs, field.Required(p, "one of name or id is required"))
		case pg.Name != nil && pg.ID != nil:
			errs = append(errs, field.Invalid(p, "name and id", "takes name or id, not both"))
		case pg.Name != nil && *pg.Name == "":
			errs = append(errs, field.Invalid(p.Child("name"), "", "must not be empty"))
		case pg.ID != nil:
			errs = append(errs, validatePattern(p.Child("id"), *pg.ID, "^pg-[0-9a-z]+$", "a placement group id such as pg-0123abcd")...)
		}
	}
	if s.IPPrefixCount != nil && *s.IPPrefixCount < 0 {
		errs = append(errs, field.Invalid(spec.Child("ipPrefixCount"), *s.IPPrefixCount, "must be 0 or more"))
	}
	errs = append(errs, validateNetworkInterfaces(spec.Child("networkInterfaces"), s.NetworkInterfaces)...)
	if ct := s.ConnectionTracking; ct != nil {
		p := spec.Child("connectionTracking")
		if ct.TCPEstablishedTimeout == nil && ct.UDPStreamTimeout == nil && ct.UDPTimeout == nil {
			errs = append(errs, field.Required(p, "one of tcpEstablishedTimeout, udpStreamTimeout or udpTimeout is required"))
		}
		errs = append(errs, validateRange(p.Child("tcpEstablishedTimeout"), ct.TCPEstablishedTimeout, 60, 432000)...)
		errs = append(errs, validateRange(p.Child("udpStreamTimeout"), ct.UDPStreamTimeout, 60, 180)...)
		errs = append(errs, validateRange(p.Child("udpTimeout"), ct.UDPTimeout, 30, 60)...)
	}
	if c := s.CPUOptions; c != nil && c.NestedVirtualization != nil && *c.NestedVirtualization != "enabled" && *c.NestedVirtualization != "disabled" {
		errs = append(errs, field.NotSupported(spec.Child("cpuOptions", "nestedVirtualization"), *c.NestedVirtualization, []string{"enabled", "disabled"}))
	}
	return errs
}

// validateRange checks an optional number of seconds against its bounds.
func validateRange(path *field.Path, v *int32, lo, hi int32) field.ErrorList {
	if v == nil || (*v >= lo && *v <= hi) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, *v, fmt.Sprintf("must be between %d and %d", lo, hi))}
}

// validateNetworkInterfaces checks that the interfaces, when given, include the primary one
// (card 0, device 0, type interface), use each card and device pair once, and put at most one
// efa-only interface on a card.
func validateNetworkInterfaces(path *field.Path, nis []*NetworkInterface) field.ErrorList {
	if len(nis) == 0 {
		return nil
	}
	var errs field.ErrorList
	if len(nis) > 150 {
		errs = append(errs, field.TooMany(path, len(nis), 150))
	}
	primary := false
	pairs, efaOnly := map[[2]int32]bool{}, map[int32]bool{}
	for i, ni := range nis {
		if ni == nil {
			continue
		}
		p := path.Index(i)
		if ni.NetworkCardIndex < 0 || ni.DeviceIndex < 0 {
			errs = append(errs, field.Invalid(p, fmt.Sprintf("card %d, device %d", ni.NetworkCardIndex, ni.DeviceIndex), "indexes must be 0 or more"))
		}
		if ni.InterfaceType != InterfaceTypeInterface && ni.InterfaceType != InterfaceTypeEFAOnly {
			errs = append(errs, field.NotSupported(p.Child("interfaceType"), ni.InterfaceType, []string{string(InterfaceTypeInterface), string(InterfaceTypeEFAOnly)}))
		}
		pair := [2]int32{ni.NetworkCardIndex, ni.DeviceIndex}
		if pairs[pair] {
			errs = append(errs, field.Invalid(p, pair, fmt.Sprintf("networkCardIndex %d and deviceIndex %d are used by another interface", pair[0], pair[1])))
		}
		pairs[pair] = true
		if ni.InterfaceType == InterfaceTypeEFAOnly {
			if efaOnly[ni.NetworkCardIndex] {
				errs = append(errs, field.Invalid(p, ni.NetworkCardIndex, "a network card has at most one efa-only interface"))
			}
			efaOnly[ni.NetworkCardIndex] = true
		}
		primary = primary || (pair == [2]int32{0, 0} && ni.InterfaceType == InterfaceTypeInterface)
	}
	if !primary {
		errs = append(errs, field.Required(path, "a primary interface is required: networkCardIndex 0, deviceIndex 0, interfaceType interface"))
	}
	return errs
}

// UnappliedFields names the spec fields an EC2NodeClass sets that nodepilot keeps (so that
// Karpenter, given the object back, applies them) but does not yet apply to the instances it
// launches, which get EC2's defaults for them instead.
func (nc *EC2NodeClass) UnappliedFields() []string {
	if nc.Spec.PlacementGroupSelector != nil {
		return []string{"spec.placementGroupSelector"}
	}
	return nil
}
