package emulator

import "strconv"

type describeAvailabilityZonesResponse struct {
	ec2Response
	Zones []xmlZone `xml:"availabilityZoneInfo>item"`
}

type xmlZone struct {
	ZoneName           string `xml:"zoneName"`
	ZoneID             string `xml:"zoneId"`
	ZoneState          string `xml:"zoneState"`
	RegionName         string `xml:"regionName"`
	GroupName          string `xml:"groupName"`
	NetworkBorderGroup string `xml:"networkBorderGroup"`
	OptInStatus        string `xml:"optInStatus"`
	ZoneType           string `xml:"zoneType"`
}

func (x xmlZone) field(name string) ([]string, bool) {
	switch name {
	case "zone-name":
		return one(x.ZoneName), true
	case "zone-id":
		return one(x.ZoneID), true
	case "state":
		return one(x.ZoneState), true
	case "region-name":
		return one(x.RegionName), true
	case "group-name":
		return one(x.GroupName), true
	case "zone-type":
		return one(x.ZoneType), true
	case "opt-in-status":
		return one(x.OptInStatus), true
	}
	return nil, false
}

func (e *Emulator) describeAvailabilityZones(q query) (any, error) {
	filters := parseFilters(q)
	if err := checkFilters(filters, xmlZone{}.field); err != nil {
		return nil, err
	}
	names, ids := q.list("ZoneName"), q.list("ZoneId")
	for _, n := range names {
		if _, ok := e.world.zoneByName(n); !ok {
			return nil, errInvalidParameterValue("Invalid availability zone: [" + n + "]")
		}
	}
	out := &describeAvailabilityZonesResponse{}
	for _, z := range e.world.zones {
		x := xmlZone{ZoneName: z.Name, ZoneID: z.ID, ZoneState: "available", RegionName: e.cfg.Region, GroupName: e.cfg.Region,
			NetworkBorderGroup: e.cfg.Region, OptInStatus: "opt-in-not-required", ZoneType: "availability-zone"}
		if (len(names) > 0 || len(ids) > 0) && !contains(names, z.Name) && !contains(ids, z.ID) {
			continue
		}
		if matches(filters, x.field) {
			out.Zones = append(out.Zones, x)
		}
	}
	return out, nil
}

type describeSubnetsResponse struct {
	ec2Response
	Subnets   []xmlSubnet `xml:"subnetSet>item"`
	NextToken string      `xml:"nextToken,omitempty"`
}

type xmlSubnet struct {
	SubnetID                string   `xml:"subnetId"`
	SubnetArn               string   `xml:"subnetArn"`
	State                   string   `xml:"state"`
	VpcID                   string   `xml:"vpcId"`
	OwnerID                 string   `xml:"ownerId"`
	CidrBlock               string   `xml:"cidrBlock"`
	AvailableIPAddressCount int      `xml:"availableIpAddressCount"`
	AvailabilityZone        string   `xml:"availabilityZone"`
	AvailabilityZoneID      string   `xml:"availabilityZoneId"`
	DefaultForAz            bool     `xml:"defaultForAz"`
	MapPublicIPOnLaunch     bool     `xml:"mapPublicIpOnLaunch"`
	Tags                    []xmlTag `xml:"tagSet>item"`
}

func (s *subnet) field(name string) ([]string, bool) {
	switch name {
	case "subnet-id":
		return one(s.ID), true
	case "availability-zone":
		return one(s.Zone), true
	case "availability-zone-id":
		return one(s.ZoneID), true
	case "vpc-id":
		return one(s.VpcID), true
	case "cidr-block", "cidr":
		return one(s.CIDR), true
	case "state":
		return one("available"), true
	case "available-ip-address-count":
		return one(strconv.Itoa(s.Free)), true
	case "default-for-az":
		return one("false"), true
	}
	return tagField(name, s.Tags)
}

func (e *Emulator) describeSubnets(q query) (any, error) {
	filters := parseFilters(q)
	if err := checkFilters(filters, (&subnet{}).field); err != nil {
		return nil, err
	}
	size, err := maxResults(q, 5, 1000, 1000)
	if err != nil {
		return nil, err
	}
	ids := q.list("SubnetId")
	for _, id := range ids {
		if e.world.subnetByID(id) == nil {
			return nil, newError(0, "InvalidSubnetID.NotFound", "The subnet ID '"+id+"' does not exist")
		}
	}
	var selected []xmlSubnet
	for _, s := range e.world.subnets {
		if len(ids) > 0 && !contains(ids, s.ID) {
			continue
		}
		if !matches(filters, s.field) {
			continue
		}
		selected = append(selected, xmlSubnet{
			SubnetID: s.ID, SubnetArn: "arn:aws:ec2:" + e.cfg.Region + ":" + e.cfg.AccountID + ":subnet/" + s.ID,
			State: "available", VpcID: s.VpcID, OwnerID: e.cfg.AccountID, CidrBlock: s.CIDR,
			AvailableIPAddressCount: max(s.Free, 0), AvailabilityZone: s.Zone, AvailabilityZoneID: s.ZoneID,
			Tags: tagSet(s.Tags),
		})
	}
	start, end, next, perr := ec2Page(q, len(selected), size)
	if perr != nil {
		return nil, perr
	}
	return &describeSubnetsResponse{Subnets: selected[start:end], NextToken: next}, nil
}

type describeSecurityGroupsResponse struct {
	ec2Response
	Groups    []xmlSecurityGroup `xml:"securityGroupInfo>item"`
	NextToken string             `xml:"nextToken,omitempty"`
}

type xmlSecurityGroup struct {
	OwnerID          string   `xml:"ownerId"`
	GroupID          string   `xml:"groupId"`
	GroupName        string   `xml:"groupName"`
	GroupDescription string   `xml:"groupDescription"`
	VpcID            string   `xml:"vpcId"`
	SecurityGroupArn string   `xml:"securityGroupArn"`
	Tags             []xmlTag `xml:"tagSet>item"`
}

func (g *securityGroup) field(name string) ([]string, bool) {
	switch name {
	case "group-id":
		return one(g.ID), true
	case "group-name":
		return one(g.Name), true
	case "vpc-id":
		return one(g.VpcID), true
	case "description":
		return one(g.Description), true
	case "owner-id":
		return nil, true
	}
	return tagField(name, g.Tags)
}

func (e *Emulator) describeSecurityGroups(q query) (any, error) {
	filters := parseFilters(q)
	if err := checkFilters(filters, (&securityGroup{}).field); err != nil {
		return nil, err
	}
	size, err := maxResults(q, 5, 1000, 1000)
	if err != nil {
		return nil, err
	}
	ids, names := q.list("GroupId"), q.list("GroupName")
	for _, id := range ids {
		if e.world.groupByID(id) == nil {
			return nil, newError(0, "InvalidGroup.NotFound", "The security group '"+id+"' does not exist")
		}
	}
	for _, n := range names {
		found := false
		for _, g := range e.world.groups {
			found = found || g.Name == n
		}
		if !found {
			return nil, newError(0, "InvalidGroup.NotFound", "The security group '"+n+"' does not exist in default VPC '"+e.world.vpcID+"'")
		}
	}
	var selected []xmlSecurityGroup
	for _, g := range e.world.groups {
		if len(ids) > 0 && !contains(ids, g.ID) || len(names) > 0 && !contains(names, g.Name) {
			continue
		}
		owner := func(name string) ([]string, bool) {
			if name == "owner-id" {
				return one(e.cfg.AccountID), true
			}
			return g.field(name)
		}
		if !matches(filters, owner) {
			continue
		}
		selected = append(selected, xmlSecurityGroup{
			OwnerID: e.cfg.AccountID, GroupID: g.ID, GroupName: g.Name, GroupDescription: g.Description, VpcID: g.VpcID,
			SecurityGroupArn: "arn:aws:ec2:" + e.cfg.Region + ":" + e.cfg.AccountID + ":security-group/" + g.ID,
			Tags:             tagSet(g.Tags),
		})
	}
	start, end, next, perr := ec2Page(q, len(selected), size)
	if perr != nil {
		return nil, perr
	}
	return &describeSecurityGroupsResponse{Groups: selected[start:end], NextToken: next}, nil
}
