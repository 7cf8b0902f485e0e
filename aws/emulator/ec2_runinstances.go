package emulator

import (
	"fmt"
)

type runInstancesResponse struct {
	ec2Response
	ReservationID string        `xml:"reservationId"`
	OwnerID       string        `xml:"ownerId"`
	Instances     []xmlInstance `xml:"instancesSet>item"`
}

// runInstances launches MinCount to MaxCount instances of one type, from a launch template, from
// the request's own parameters, or both (the request's win), on-demand or spot
// (InstanceMarketOptions). It launches at least MinCount or nothing, failing with the code EC2
// gives (capacity, subnet, image...), as EC2 does. A dry run is answered before it is called.
func (e *Emulator) runInstances(q query) (any, error) {
	minCount, okMin, err := q.intParam("MinCount")
	if err != nil {
		return nil, err
	}
	maxCount, okMax, err := q.intParam("MaxCount")
	if err != nil {
		return nil, err
	}
	switch {
	case !okMin:
		return nil, errMissingParameter("MinCount")
	case !okMax:
		return nil, errMissingParameter("MaxCount")
	case minCount < 1 || maxCount < minCount || maxCount > 1000:
		return nil, errInvalidParameterValue(fmt.Sprintf("MinCount %d and MaxCount %d: want 1 <= MinCount <= MaxCount <= 1000", minCount, maxCount))
	}
	lt, aerr := e.runTemplate(q)
	if aerr != nil {
		return nil, aerr
	}
	c := &candidate{template: lt, override: xmlOverrides{SubnetID: q.str("SubnetId"), AvailabilityZone: q.str("Placement.AvailabilityZone")}}
	capacityType := capacityOnDemand
	switch mt := q.str("InstanceMarketOptions.MarketType"); mt {
	case "":
	case capacitySpot:
		capacityType = capacitySpot
	default:
		return nil, errInvalidParameterValue("Value (" + mt + ") for parameter InstanceMarketOptions.MarketType is invalid")
	}
	if active := e.activeInstances(); active+minCount > e.cfg.InstanceLimit {
		return nil, newError(0, "InstanceLimitExceeded", fmt.Sprintf("You have requested more instances (%d) than your current instance limit of %d allows for the specified instance type.",
			active+minCount, e.cfg.InstanceLimit))
	}
	// One check stands for every instance: they share type, subnet and image.
	if code, msg := e.launchCheck(c, capacityType); code != "" {
		return nil, newError(0, code, msg)
	}
	out := &runInstancesResponse{OwnerID: e.cfg.AccountID}
	r := &fleetRequest{tags: map[string]map[string]string{}, token: q.str("ClientToken")}
	var code, msg string
	for range maxCount {
		if code, msg = e.launchCheck(c, capacityType); code != "" {
			break // the first check passed: what runs out is addresses, or injected capacity
		}
		inst := e.launch(c, capacityType, r, "")
		if out.ReservationID == "" {
			out.ReservationID = inst.ReservationID
		}
		inst.ReservationID = out.ReservationID
		out.Instances = append(out.Instances, e.instanceXML(inst))
	}
	if len(out.Instances) < minCount {
		// At least MinCount or nothing: what was launched goes again.
		for _, x := range out.Instances {
			e.beginShutdown(e.instances[x.InstanceID], e.now(), reasonUserShutdown)
		}
		return nil, newError(0, code, msg)
	}
	return out, nil
}

// runTemplate is what a RunInstances request launches from: its launch template, if it names
// one, with the request's own parameters over it.
func (e *Emulator) runTemplate(q query) (*launchTemplate, *apiError) {
	own := parseTemplateData(q)
	spec := q.sub("LaunchTemplate")
	if spec.str("LaunchTemplateId") == "" && spec.str("LaunchTemplateName") == "" {
		return &launchTemplate{Data: own}, nil
	}
	found, err := e.findTemplate(spec.str("LaunchTemplateId"), spec.str("LaunchTemplateName"))
	if err != nil {
		return nil, err
	}
	d := found.Data
	d.Tags = map[string]map[string]string{}
	for rt, tags := range found.Data.Tags {
		addTags(d.Tags, rt, tags)
	}
	for rt, tags := range own.Tags {
		addTags(d.Tags, rt, tags)
	}
	override := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	override(&d.ImageID, own.ImageID)
	override(&d.InstanceType, own.InstanceType)
	override(&d.UserData, own.UserData)
	override(&d.ProfileName, own.ProfileName)
	override(&d.ProfileArn, own.ProfileArn)
	if q.has("Placement.Tenancy") {
		d.Tenancy = own.Tenancy
	}
	if len(own.SecurityGroupIDs) > 0 || len(own.SecurityGroupNames) > 0 {
		d.SecurityGroupIDs, d.SecurityGroupNames = own.SecurityGroupIDs, own.SecurityGroupNames
	}
	return &launchTemplate{ID: found.ID, Name: found.Name, Data: d}, nil
}
