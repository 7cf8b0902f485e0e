package emulator

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// fleetRecord remembers an instant fleet's answer under its client token.
type fleetRecord struct {
	fingerprint uint64
	response    createFleetResponse
}

type createFleetResponse struct {
	ec2Response
	FleetID   string             `xml:"fleetId"`
	Errors    []xmlFleetError    `xml:"errorSet>item"`
	Instances []xmlFleetInstance `xml:"fleetInstanceSet>item"`
}

type xmlFleetError struct {
	LaunchTemplateAndOverrides xmlTemplateAndOverrides `xml:"launchTemplateAndOverrides"`
	Lifecycle                  string                  `xml:"lifecycle"`
	ErrorCode                  string                  `xml:"errorCode"`
	ErrorMessage               string                  `xml:"errorMessage"`
}

type xmlFleetInstance struct {
	LaunchTemplateAndOverrides xmlTemplateAndOverrides `xml:"launchTemplateAndOverrides"`
	Lifecycle                  string                  `xml:"lifecycle"`
	InstanceIDs                []string                `xml:"instanceIds>item"`
	InstanceType               string                  `xml:"instanceType"`
}

type xmlTemplateAndOverrides struct {
	LaunchTemplateSpecification xmlTemplateSpec `xml:"launchTemplateSpecification"`
	Overrides                   xmlOverrides    `xml:"overrides"`
}

type xmlTemplateSpec struct {
	LaunchTemplateID   string `xml:"launchTemplateId,omitempty"`
	LaunchTemplateName string `xml:"launchTemplateName,omitempty"`
	Version            string `xml:"version,omitempty"`
}

type xmlOverrides struct {
	InstanceType     string `xml:"instanceType,omitempty"`
	ImageID          string `xml:"imageId,omitempty"`
	MaxPrice         string `xml:"maxPrice,omitempty"`
	SubnetID         string `xml:"subnetId,omitempty"`
	AvailabilityZone string `xml:"availabilityZone,omitempty"`
	WeightedCapacity string `xml:"weightedCapacity,omitempty"`
	Priority         string `xml:"priority,omitempty"`
}

// candidate is one launch template config x override: a pool the fleet may launch from.
type candidate struct {
	index    int
	spec     xmlTemplateSpec
	override xmlOverrides
	template *launchTemplate
	priority float64
	hasPrio  bool
}

func (c *candidate) echo() xmlTemplateAndOverrides {
	return xmlTemplateAndOverrides{LaunchTemplateSpecification: c.spec, Overrides: c.override}
}

func (c *candidate) instanceType() string {
	if c.override.InstanceType != "" {
		return c.override.InstanceType
	}
	return c.template.Data.InstanceType
}

func (c *candidate) imageID() string {
	if c.override.ImageID != "" {
		return c.override.ImageID
	}
	return c.template.Data.ImageID
}

const (
	capacitySpot     = "spot"
	capacityOnDemand = "on-demand"
)

// fleetRequest is the parsed CreateFleet request.
type fleetRequest struct {
	spotCount, onDemandCount int
	spotStrategy             string
	onDemandStrategy         string
	candidates               []*candidate
	tags                     map[string]map[string]string
	token                    string
}

func (e *Emulator) parseFleet(q query) (*fleetRequest, *apiError) {
	if t := q.str("Type"); t != "instant" {
		return nil, newError(0, "InvalidParameterValue", "The emulator serves CreateFleet with Type=instant only, got '"+t+"'")
	}
	total, ok, err := q.intParam("TargetCapacitySpecification.TotalTargetCapacity")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errMissingParameter("TargetCapacitySpecification.TotalTargetCapacity")
	}
	if total < 1 || total > 1000 {
		return nil, errInvalidParameterValue("TotalTargetCapacity must be between 1 and 1000, got " + strconv.Itoa(total))
	}
	r := &fleetRequest{token: q.str("ClientToken"), tags: map[string]map[string]string{}}
	r.onDemandCount, _, err = q.intParam("TargetCapacitySpecification.OnDemandTargetCapacity")
	if err != nil {
		return nil, err
	}
	r.spotCount, _, err = q.intParam("TargetCapacitySpecification.SpotTargetCapacity")
	if err != nil {
		return nil, err
	}
	// Each count is bounded by total before they are added, so that the sum cannot overflow.
	if r.onDemandCount < 0 || r.spotCount < 0 || r.onDemandCount > total || r.spotCount > total || r.onDemandCount+r.spotCount > total {
		return nil, errInvalidParameterValue("OnDemandTargetCapacity plus SpotTargetCapacity must not exceed TotalTargetCapacity")
	}
	switch def := q.str("TargetCapacitySpecification.DefaultTargetCapacityType"); def {
	case capacitySpot:
		r.spotCount = total - r.onDemandCount
	case capacityOnDemand:
		r.onDemandCount = total - r.spotCount
	default:
		if r.spotCount+r.onDemandCount != total {
			return nil, errInvalidParameterValue("DefaultTargetCapacityType must be spot or on-demand, got '" + def + "'")
		}
	}
	r.spotStrategy = q.str("SpotOptions.AllocationStrategy")
	if r.spotStrategy == "" {
		r.spotStrategy = "lowest-price"
	}
	switch r.spotStrategy {
	case "price-capacity-optimized", "lowest-price", "capacity-optimized", "capacity-optimized-prioritized", "diversified":
	default:
		return nil, errInvalidParameterValue("Value (" + r.spotStrategy + ") for parameter SpotOptions.AllocationStrategy is invalid")
	}
	r.onDemandStrategy = q.str("OnDemandOptions.AllocationStrategy")
	if r.onDemandStrategy == "" {
		r.onDemandStrategy = "lowest-price"
	}
	if r.onDemandStrategy != "lowest-price" && r.onDemandStrategy != "prioritized" {
		return nil, errInvalidParameterValue("Value (" + r.onDemandStrategy + ") for parameter OnDemandOptions.AllocationStrategy is invalid")
	}
	configs := q.structs("LaunchTemplateConfigs")
	if len(configs) == 0 {
		return nil, errMissingParameter("LaunchTemplateConfigs")
	}
	for _, c := range configs {
		spec := c.sub("LaunchTemplateSpecification")
		lt, lerr := e.findTemplate(spec.str("LaunchTemplateId"), spec.str("LaunchTemplateName"))
		if lerr != nil {
			return nil, lerr
		}
		version := spec.str("Version")
		if version != "" && version != "$Latest" && version != "$Default" && version != "1" {
			return nil, newError(0, "InvalidLaunchTemplateId.VersionNotFound",
				"Could not find the specified version "+version+" for the launch template with ID "+lt.ID+".")
		}
		echo := xmlTemplateSpec{LaunchTemplateID: lt.ID, LaunchTemplateName: spec.str("LaunchTemplateName"), Version: version}
		overrides := c.structs("Overrides")
		if len(overrides) == 0 {
			r.candidates = append(r.candidates, &candidate{index: len(r.candidates), spec: echo, template: lt})
		}
		for _, o := range overrides {
			cand := &candidate{index: len(r.candidates), spec: echo, template: lt, override: xmlOverrides{
				InstanceType: o.str("InstanceType"), ImageID: o.str("ImageId"), MaxPrice: o.str("MaxPrice"),
				SubnetID: o.str("SubnetId"), AvailabilityZone: o.str("AvailabilityZone"),
				WeightedCapacity: o.str("WeightedCapacity"), Priority: o.str("Priority"),
			}}
			if p, perr := strconv.ParseFloat(cand.override.Priority, 64); perr == nil {
				cand.priority, cand.hasPrio = p, true
			}
			r.candidates = append(r.candidates, cand)
		}
	}
	for _, ts := range q.structs("TagSpecification") {
		switch rt := ts.str("ResourceType"); rt {
		case "instance", "volume", "fleet", "network-interface", "spot-instances-request":
			addTags(r.tags, rt, ts.tags("Tag"))
		default:
			return nil, errInvalidParameterValue("'" + rt + "' is not a valid taggable resource type for this operation.")
		}
	}
	return r, nil
}

// createFleet launches an instant fleet: for each capacity type it tries the pools in the
// order of the allocation strategy, reports an error for each pool that fails, and launches
// from the first pools that do, as EC2 does.
func (e *Emulator) createFleet(q query) (any, error) {
	fp := fingerprint(q.v, "ClientToken")
	if tok := q.str("ClientToken"); tok != "" {
		if rec, ok := e.fleets[tok]; ok {
			if rec.fingerprint != fp {
				return nil, newError(0, "IdempotentParameterMismatch", "Client token '"+tok+"' was used with different parameters.")
			}
			out := rec.response
			return &out, nil
		}
	}
	r, err := e.parseFleet(q)
	if err != nil {
		return nil, err
	}
	out := createFleetResponse{FleetID: "fleet-" + e.newUUID()}
	active := e.activeInstances()
	overLimit := active+r.onDemandCount+r.spotCount > e.cfg.InstanceLimit
	for _, part := range r.parts() {
		if overLimit {
			// The whole request is refused rather than launched up to the limit, as RunInstances
			// does; whether an instant fleet launches part of it is not checked against EC2.
			c := e.orderCandidates(r, part.capacityType)[0]
			out.Errors = append(out.Errors, xmlFleetError{LaunchTemplateAndOverrides: c.echo(), Lifecycle: part.capacityType, ErrorCode: "InstanceLimitExceeded",
				ErrorMessage: fmt.Sprintf("You have requested more instances (%d) than your current instance limit of %d allows for the specified instance type. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.",
					active+r.onDemandCount+r.spotCount, e.cfg.InstanceLimit)})
			continue
		}
		launched := 0
		for _, c := range e.orderCandidates(r, part.capacityType) {
			if launched == part.count {
				break
			}
			for launched < part.count {
				if code, msg := e.launchCheck(c, part.capacityType); code != "" {
					out.Errors = append(out.Errors, xmlFleetError{LaunchTemplateAndOverrides: c.echo(), Lifecycle: part.capacityType, ErrorCode: code, ErrorMessage: msg})
					break
				}
				inst := e.launch(c, part.capacityType, r, out.FleetID)
				launched++
				if n := len(out.Instances); n > 0 && out.Instances[n-1].LaunchTemplateAndOverrides == c.echo() && out.Instances[n-1].Lifecycle == part.capacityType {
					out.Instances[n-1].InstanceIDs = append(out.Instances[n-1].InstanceIDs, inst.ID)
					continue
				}
				out.Instances = append(out.Instances, xmlFleetInstance{LaunchTemplateAndOverrides: c.echo(), Lifecycle: part.capacityType,
					InstanceIDs: []string{inst.ID}, InstanceType: inst.Type})
			}
		}
	}
	if r.token != "" {
		e.fleets[r.token] = &fleetRecord{fingerprint: fp, response: out}
	}
	return &out, nil
}

// activeInstances counts the instances that hold capacity against the account limit: all
// but the stopped and terminated ones.
func (e *Emulator) activeInstances() int {
	n := 0
	for _, inst := range e.instances {
		if inst.State != StateStopped && inst.State != StateTerminated {
			n++
		}
	}
	return n
}

// orderCandidates sorts the pools for a capacity type by its allocation strategy: the lowest
// price first (spot price for spot, list price for on-demand), or the lowest Priority first
// for the prioritized strategies; ties keep the request's order.
func (e *Emulator) orderCandidates(r *fleetRequest, capacityType string) []*candidate {
	out := append([]*candidate(nil), r.candidates...)
	prioritized := capacityType == capacitySpot && r.spotStrategy == "capacity-optimized-prioritized" ||
		capacityType == capacityOnDemand && r.onDemandStrategy == "prioritized"
	price := func(c *candidate) float64 {
		t := e.world.typeByName[c.instanceType()]
		if t == nil {
			return 1e12
		}
		if capacityType == capacityOnDemand {
			return t.OnDemandPrice
		}
		zn := e.candidateZone(c)
		z, ok := e.world.zoneByName(zn)
		if !ok {
			return 1e12
		}
		return e.prices.price(t, z, e.prices.step(e.now()))
	}
	prices := map[*candidate]float64{}
	for _, c := range out {
		prices[c] = price(c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if prioritized && (a.hasPrio != b.hasPrio || a.priority != b.priority) {
			if a.hasPrio != b.hasPrio {
				return a.hasPrio
			}
			return a.priority < b.priority
		}
		return prices[a] < prices[b]
	})
	return out
}

// candidateZone is the zone a pool launches into: its subnet's, else its override's, else the
// first zone that offers its type.
func (e *Emulator) candidateZone(c *candidate) string {
	if s := e.world.subnetByID(c.override.SubnetID); s != nil {
		return s.Zone
	}
	if c.override.AvailabilityZone != "" {
		return c.override.AvailabilityZone
	}
	if t := e.world.typeByName[c.instanceType()]; t != nil && len(t.Zones) > 0 {
		return t.Zones[0]
	}
	return ""
}

// candidateSubnet is the subnet a pool launches into: its own, else the subnet of its zone.
func (e *Emulator) candidateSubnet(c *candidate) *subnet {
	if c.override.SubnetID != "" {
		return e.world.subnetByID(c.override.SubnetID)
	}
	zn := e.candidateZone(c)
	for _, s := range e.world.subnets {
		if s.Zone == zn {
			return s
		}
	}
	return nil
}

// launchCheck returns the error code and message EC2 would report for launching one
// instance of capacityType from c now, or "" if it can launch.
func (e *Emulator) launchCheck(c *candidate, capacityType string) (code, message string) {
	typeName := c.instanceType()
	t := e.world.typeByName[typeName]
	if t == nil {
		return "InvalidParameterValue", "Invalid value '" + typeName + "' for InstanceType."
	}
	if c.override.SubnetID != "" && e.world.subnetByID(c.override.SubnetID) == nil {
		return "InvalidSubnetID.NotFound", "The subnet ID '" + c.override.SubnetID + "' does not exist"
	}
	s := e.candidateSubnet(c)
	if s == nil {
		return "InvalidParameterValue", "No subnet found for Availability Zone '" + c.override.AvailabilityZone + "'"
	}
	if c.override.AvailabilityZone != "" && c.override.AvailabilityZone != s.Zone {
		return "InvalidParameterValue", fmt.Sprintf("The subnet '%s' is in Availability Zone %s, not %s.", s.ID, s.Zone, c.override.AvailabilityZone)
	}
	if !contains(t.Zones, s.Zone) {
		return "Unsupported", fmt.Sprintf("Your requested instance type (%s) is not supported in your requested Availability Zone (%s). Please retry your request by not specifying an Availability Zone or choosing %s.",
			typeName, s.Zone, strings.Join(t.Zones, ", "))
	}
	imageID := c.imageID()
	if imageID == "" {
		return "MissingParameter", "The request must contain the parameter ImageId"
	}
	img := e.world.imageByID[imageID]
	if img == nil {
		return "InvalidAMIID.NotFound", "The image id '[" + imageID + "]' does not exist"
	}
	if img.Arch != t.ec2Arch() {
		return "InvalidParameterValue", fmt.Sprintf("The architecture '%s' of the specified instance type does not match the architecture '%s' of the specified AMI. Specify an instance type and an AMI that have matching architectures, and try again. You can use 'describe-instance-types' or 'describe-images' to discover the architecture of the instance type or AMI.",
			t.ec2Arch(), img.Arch)
	}
	for _, id := range c.template.Data.SecurityGroupIDs {
		if e.world.groupByID(id) == nil {
			return "InvalidGroup.NotFound", "The security group '" + id + "' does not exist in VPC '" + e.world.vpcID + "'"
		}
	}
	if d := c.template.Data; d.ProfileName != "" || d.ProfileArn != "" {
		if e.profileFor(d.ProfileName, d.ProfileArn) == nil {
			return "InvalidParameterValue", "Value (" + d.ProfileName + d.ProfileArn + ") for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name"
		}
	}
	if code, msg := e.faults.capacity(typeName, s.Zone, capacityType); code != "" {
		return code, msg
	}
	if s.Free <= 0 {
		return "InsufficientFreeAddressesInSubnet", "There are not enough free addresses in subnet '" + s.ID + "' to satisfy the requested number of instances."
	}
	return "", ""
}

// launch creates one instance from c, in a fleet unless fleetID is empty. The caller has
// checked it with launchCheck.
func (e *Emulator) launch(c *candidate, capacityType string, r *fleetRequest, fleetID string) *instance {
	now := e.now()
	t := e.world.typeByName[c.instanceType()]
	s := e.candidateSubnet(c)
	img := e.world.imageByID[c.imageID()]
	d := c.template.Data
	inst := &instance{
		ID: e.newID("i", 17), Type: t.Name, Zone: s.Zone, ZoneID: s.ZoneID, SubnetID: s.ID, VpcID: s.VpcID,
		ImageID: img.ID, Arch: img.Arch, CapacityType: capacityType, State: StatePending, LaunchTime: now,
		Tags: map[string]string{}, VolumeTags: map[string]string{}, TemplateID: c.template.ID, Template: d,
		ReservationID: e.newID("r", 17), FleetID: fleetID, ClientToken: r.token,
		ENIID: e.newID("eni", 17), VolumeID: e.newID("vol", 17), subnet: s, runningAt: now.Add(e.cfg.BootDelay),
		RequesterID: "226008221399",
	}
	if capacityType == capacitySpot {
		inst.SpotRequestID = e.newID("sir", 8)
	}
	inst.PrivateIP = s.allocateIP()
	inst.PrivateDNS = privateDNSName(inst.PrivateIP, e.cfg.Region)
	for k, v := range d.Tags["instance"] {
		inst.Tags[k] = v
	}
	for k, v := range r.tags["instance"] {
		inst.Tags[k] = v
	}
	if fleetID != "" { // RunInstances launches outside any fleet
		inst.Tags["aws:ec2:fleet-id"] = fleetID
	}
	if c.template.ID != "" { // and may launch without a template
		inst.Tags["aws:ec2launchtemplate:id"] = c.template.ID
		inst.Tags["aws:ec2launchtemplate:version"] = "1"
	}
	for k, v := range d.Tags["volume"] {
		inst.VolumeTags[k] = v
	}
	for k, v := range r.tags["volume"] {
		inst.VolumeTags[k] = v
	}
	for _, id := range d.SecurityGroupIDs {
		inst.Groups = append(inst.Groups, e.world.groupByID(id))
	}
	for _, name := range d.SecurityGroupNames {
		for _, g := range e.world.groups {
			if g.Name == name {
				inst.Groups = append(inst.Groups, g)
			}
		}
	}
	if len(inst.Groups) == 0 {
		inst.Groups = []*securityGroup{e.world.groups[0]}
	}
	if p := e.profileFor(d.ProfileName, d.ProfileArn); p != nil {
		inst.ProfileArn, inst.ProfileID = p.Arn, p.ID
	}
	if e.cfg.BootDelay == 0 {
		inst.State = StateRunning
	}
	e.instances[inst.ID] = inst
	e.reschedule(inst)
	return inst
}

// privateDNSName is EC2's ip-name hostname: ip-10-0-0-4.ec2.internal in us-east-1,
// ip-10-0-0-4.REGION.compute.internal elsewhere.
func privateDNSName(ip interface{ String() string }, region string) string {
	host := "ip-" + strings.ReplaceAll(ip.String(), ".", "-")
	if region == "us-east-1" {
		return host + ".ec2.internal"
	}
	return host + "." + region + ".compute.internal"
}

// fleetPart is how many instances of one capacity type a fleet request asks for.
type fleetPart struct {
	capacityType string
	count        int
}

// parts are the capacity types the request asks instances of, on-demand first.
func (r *fleetRequest) parts() []fleetPart {
	var out []fleetPart
	for _, part := range []fleetPart{{capacityOnDemand, r.onDemandCount}, {capacitySpot, r.spotCount}} {
		if part.count > 0 {
			out = append(out, part)
		}
	}
	return out
}
