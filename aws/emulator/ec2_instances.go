package emulator

import (
	"cmp"
	"regexp"
	"strconv"
	"strings"
)

type describeInstancesResponse struct {
	ec2Response
	Reservations []xmlReservation `xml:"reservationSet>item"`
	NextToken    string           `xml:"nextToken,omitempty"`
}

type xmlReservation struct {
	ReservationID string        `xml:"reservationId"`
	OwnerID       string        `xml:"ownerId"`
	RequesterID   string        `xml:"requesterId,omitempty"`
	Instances     []xmlInstance `xml:"instancesSet>item"`
}

type xmlInstance struct {
	InstanceID            string              `xml:"instanceId"`
	ImageID               string              `xml:"imageId"`
	InstanceState         xmlState            `xml:"instanceState"`
	PrivateDNSName        string              `xml:"privateDnsName"`
	DNSName               string              `xml:"dnsName"`
	Reason                string              `xml:"reason"`
	KeyName               string              `xml:"keyName,omitempty"`
	AmiLaunchIndex        int                 `xml:"amiLaunchIndex"`
	InstanceType          string              `xml:"instanceType"`
	LaunchTime            string              `xml:"launchTime"`
	Placement             xmlPlacement        `xml:"placement"`
	Monitoring            xmlMonitoring       `xml:"monitoring"`
	SubnetID              string              `xml:"subnetId,omitempty"`
	VpcID                 string              `xml:"vpcId,omitempty"`
	PrivateIPAddress      string              `xml:"privateIpAddress,omitempty"`
	SourceDestCheck       bool                `xml:"sourceDestCheck"`
	Groups                []xmlGroup          `xml:"groupSet>item"`
	StateReason           *xmlStateReason     `xml:"stateReason,omitempty"`
	Architecture          string              `xml:"architecture"`
	RootDeviceType        string              `xml:"rootDeviceType"`
	RootDeviceName        string              `xml:"rootDeviceName"`
	BlockDeviceMapping    []xmlInstanceDevice `xml:"blockDeviceMapping>item"`
	InstanceLifecycle     string              `xml:"instanceLifecycle,omitempty"`
	SpotInstanceRequestID string              `xml:"spotInstanceRequestId,omitempty"`
	VirtualizationType    string              `xml:"virtualizationType"`
	ClientToken           string              `xml:"clientToken"`
	Tags                  []xmlTag            `xml:"tagSet>item"`
	Hypervisor            string              `xml:"hypervisor"`
	NetworkInterfaces     []xmlENI            `xml:"networkInterfaceSet>item"`
	IamInstanceProfile    *xmlProfileRef      `xml:"iamInstanceProfile,omitempty"`
	EbsOptimized          bool                `xml:"ebsOptimized"`
	EnaSupport            bool                `xml:"enaSupport"`
	CPUOptions            xmlCPUOptions       `xml:"cpuOptions"`
	MetadataOptions       xmlMetadataOptions  `xml:"metadataOptions"`
	PlatformDetails       string              `xml:"platformDetails"`
	UsageOperation        string              `xml:"usageOperation"`
	BootMode              string              `xml:"currentInstanceBootMode"`
	PrivateDNSNameOptions xmlDNSNameOptions   `xml:"privateDnsNameOptions"`
}

type xmlState struct {
	Code int    `xml:"code"`
	Name string `xml:"name"`
}

type xmlPlacement struct {
	AvailabilityZone   string `xml:"availabilityZone"`
	AvailabilityZoneID string `xml:"availabilityZoneId"`
	GroupName          string `xml:"groupName"`
	Tenancy            string `xml:"tenancy"`
}

type xmlMonitoring struct {
	State string `xml:"state"`
}

type xmlGroup struct {
	GroupID   string `xml:"groupId"`
	GroupName string `xml:"groupName"`
}

type xmlStateReason struct {
	Code    string `xml:"code"`
	Message string `xml:"message"`
}

type xmlInstanceDevice struct {
	DeviceName string            `xml:"deviceName"`
	Ebs        xmlInstanceVolume `xml:"ebs"`
}

type xmlInstanceVolume struct {
	VolumeID            string `xml:"volumeId"`
	Status              string `xml:"status"`
	AttachTime          string `xml:"attachTime"`
	DeleteOnTermination bool   `xml:"deleteOnTermination"`
}

type xmlENI struct {
	NetworkInterfaceID string         `xml:"networkInterfaceId"`
	SubnetID           string         `xml:"subnetId"`
	VpcID              string         `xml:"vpcId"`
	OwnerID            string         `xml:"ownerId"`
	Status             string         `xml:"status"`
	MacAddress         string         `xml:"macAddress"`
	PrivateIPAddress   string         `xml:"privateIpAddress"`
	PrivateDNSName     string         `xml:"privateDnsName"`
	SourceDestCheck    bool           `xml:"sourceDestCheck"`
	Groups             []xmlGroup     `xml:"groupSet>item"`
	Attachment         xmlENIAttach   `xml:"attachment"`
	PrivateIPAddresses []xmlPrivateIP `xml:"privateIpAddressesSet>item"`
	InterfaceType      string         `xml:"interfaceType"`
}

type xmlENIAttach struct {
	AttachmentID        string `xml:"attachmentId"`
	DeviceIndex         int    `xml:"deviceIndex"`
	NetworkCardIndex    int    `xml:"networkCardIndex"`
	Status              string `xml:"status"`
	AttachTime          string `xml:"attachTime"`
	DeleteOnTermination bool   `xml:"deleteOnTermination"`
}

type xmlPrivateIP struct {
	PrivateIPAddress string `xml:"privateIpAddress"`
	PrivateDNSName   string `xml:"privateDnsName"`
	Primary          bool   `xml:"primary"`
}

type xmlProfileRef struct {
	Arn string `xml:"arn"`
	ID  string `xml:"id"`
}

type xmlCPUOptions struct {
	CoreCount      int64 `xml:"coreCount"`
	ThreadsPerCore int64 `xml:"threadsPerCore"`
}

type xmlMetadataOptions struct {
	State                   string `xml:"state"`
	HTTPTokens              string `xml:"httpTokens"`
	HTTPPutResponseHopLimit int    `xml:"httpPutResponseHopLimit"`
	HTTPEndpoint            string `xml:"httpEndpoint"`
	HTTPProtocolIPv6        string `xml:"httpProtocolIpv6"`
	InstanceMetadataTags    string `xml:"instanceMetadataTags"`
}

type xmlDNSNameOptions struct {
	HostnameType                    string `xml:"hostnameType"`
	EnableResourceNameDNSARecord    bool   `xml:"enableResourceNameDnsARecord"`
	EnableResourceNameDNSAAAARecord bool   `xml:"enableResourceNameDnsAAAARecord"`
}

var instanceIDPattern = regexp.MustCompile(`^i-([0-9a-f]{8}|[0-9a-f]{17})$`)

// checkInstanceIDs returns EC2's error for malformed or unknown instance ids.
func (e *Emulator) checkInstanceIDs(ids []string) *apiError {
	var missing []string
	for _, id := range ids {
		if !instanceIDPattern.MatchString(id) {
			return newError(0, "InvalidInstanceID.Malformed", "Invalid id: \""+id+"\"")
		}
		if e.instances[id] == nil {
			missing = append(missing, id)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return newError(0, "InvalidInstanceID.NotFound", "The instance ID '"+missing[0]+"' does not exist")
	}
	return newError(0, "InvalidInstanceID.NotFound", "The instance IDs '"+strings.Join(missing, ", ")+"' do not exist")
}

func (inst *instance) field(name string) ([]string, bool) {
	switch name {
	case "instance-id":
		return one(inst.ID), true
	case "instance-state-name":
		return one(inst.State), true
	case "instance-state-code":
		return one(strconv.Itoa(stateCode(inst.State))), true
	case "instance-type":
		return one(inst.Type), true
	case "availability-zone":
		return one(inst.Zone), true
	case "subnet-id":
		return one(inst.SubnetID), true
	case "vpc-id":
		return one(inst.VpcID), true
	case "image-id":
		return one(inst.ImageID), true
	case "architecture":
		return one(inst.Arch), true
	case "instance-lifecycle":
		if inst.CapacityType == capacitySpot {
			return one("spot"), true
		}
		return nil, true
	case "private-dns-name":
		return one(inst.PrivateDNS), true
	case "private-ip-address":
		return one(inst.PrivateIP.String()), true
	case "reservation-id":
		return one(inst.ReservationID), true
	case "client-token":
		return one(inst.ClientToken), true
	case "launch-time":
		return one(ec2Time(inst.LaunchTime)), true
	case "iam-instance-profile.arn":
		return one(inst.ProfileArn), true
	case "spot-instance-request-id":
		return one(inst.SpotRequestID), true
	}
	return tagField(name, inst.Tags)
}

// selectInstances reads a request's InstanceId list, Filters (by field's names) and paging, as
// DescribeInstances and DescribeInstanceStatus take them, and returns the page of the instances
// that pass include and both, with the next page's token.
func (e *Emulator) selectInstances(q query, field func(*instance) fieldFunc, include func(*instance) bool) ([]*instance, string, error) {
	filters := parseFilters(q)
	if err := checkFilters(filters, field(&instance{})); err != nil {
		return nil, "", err
	}
	ids := q.list("InstanceId")
	if len(ids) > 0 && q.has("MaxResults") {
		return nil, "", newError(0, "InvalidParameterCombination", "The parameter instancesSet cannot be used with the parameter maxResults")
	}
	size, err := maxResults(q, 5, 1000, 1000)
	if err != nil {
		return nil, "", err
	}
	if err := e.checkInstanceIDs(ids); err != nil {
		return nil, "", err
	}
	selected := e.sortedInstances(func(inst *instance) bool {
		return include(inst) && (len(ids) == 0 || contains(ids, inst.ID)) && matches(filters, field(inst))
	})
	start, end, next, perr := ec2Page(q, len(selected), size)
	if perr != nil {
		return nil, "", perr
	}
	return selected[start:end], next, nil
}

func (e *Emulator) describeInstances(q query) (any, error) {
	page, next, err := e.selectInstances(q, func(inst *instance) fieldFunc { return inst.field }, func(*instance) bool { return true })
	if err != nil {
		return nil, err
	}
	out := &describeInstancesResponse{NextToken: next}
	for _, inst := range page {
		x := e.instanceXML(inst)
		if n := len(out.Reservations); n > 0 && out.Reservations[n-1].ReservationID == inst.ReservationID {
			out.Reservations[n-1].Instances = append(out.Reservations[n-1].Instances, x)
			continue
		}
		out.Reservations = append(out.Reservations, xmlReservation{ReservationID: inst.ReservationID, OwnerID: e.cfg.AccountID,
			RequesterID: inst.RequesterID, Instances: []xmlInstance{x}})
	}
	return out, nil
}

func (e *Emulator) instanceXML(inst *instance) xmlInstance {
	t := e.world.typeByName[inst.Type]
	threads := int64(2)
	if t.Arch == "arm64" || t.VCPUs == 1 {
		threads = 1
	}
	groups := make([]xmlGroup, 0, len(inst.Groups))
	for _, g := range inst.Groups {
		groups = append(groups, xmlGroup{GroupID: g.ID, GroupName: g.Name})
	}
	d := inst.Template
	md := xmlMetadataOptions{State: "applied", HTTPTokens: or(d.HTTPTokens, "optional"), HTTPPutResponseHopLimit: d.HTTPPutResponseHopLimit,
		HTTPEndpoint: or(d.HTTPEndpoint, "enabled"), HTTPProtocolIPv6: or(d.HTTPProtocolIPv6, "disabled"), InstanceMetadataTags: or(d.InstanceMetadataTags, "disabled")}
	if md.HTTPPutResponseHopLimit == 0 {
		md.HTTPPutResponseHopLimit = 1
	}
	monitoring := "disabled"
	if d.MonitoringEnabled {
		monitoring = "enabled"
	}
	launch := ec2Time(inst.LaunchTime)
	root := "/dev/xvda"
	if img := e.world.imageByID[inst.ImageID]; img != nil {
		root = img.RootDevice
	}
	x := xmlInstance{
		InstanceID: inst.ID, ImageID: inst.ImageID, InstanceState: xmlState{Code: stateCode(inst.State), Name: inst.State},
		Reason: inst.TransitionReason, KeyName: d.KeyName, InstanceType: inst.Type, LaunchTime: launch,
		Placement:  xmlPlacement{AvailabilityZone: inst.Zone, AvailabilityZoneID: inst.ZoneID, Tenancy: cmp.Or(inst.Template.Tenancy, "default")},
		Monitoring: xmlMonitoring{State: monitoring}, SourceDestCheck: true, Groups: groups,
		Architecture: inst.Arch, RootDeviceType: "ebs", RootDeviceName: root, VirtualizationType: "hvm",
		ClientToken: inst.ClientToken, Tags: tagSet(inst.Tags), Hypervisor: "xen", EbsOptimized: true, EnaSupport: true,
		CPUOptions:      xmlCPUOptions{CoreCount: max(1, t.VCPUs/threads), ThreadsPerCore: threads},
		MetadataOptions: md, PlatformDetails: linuxProductDescription, UsageOperation: "RunInstances",
		BootMode:              map[string]string{"arm64": "uefi", "x86_64": "legacy-bios"}[inst.Arch],
		PrivateDNSNameOptions: xmlDNSNameOptions{HostnameType: "ip-name"},
	}
	if inst.CapacityType == capacitySpot {
		x.InstanceLifecycle, x.SpotInstanceRequestID = "spot", inst.SpotRequestID
	}
	if inst.ProfileArn != "" {
		x.IamInstanceProfile = &xmlProfileRef{Arn: inst.ProfileArn, ID: inst.ProfileID}
	}
	if inst.StateReasonCode != "" {
		x.StateReason = &xmlStateReason{Code: inst.StateReasonCode, Message: inst.StateReasonText}
	}
	if inst.State == StateTerminated {
		// EC2 forgets a terminated instance's network and volumes.
		x.Groups = nil
		return x
	}
	ip := inst.PrivateIP.String()
	x.PrivateDNSName, x.PrivateIPAddress, x.SubnetID, x.VpcID = inst.PrivateDNS, ip, inst.SubnetID, inst.VpcID
	x.BlockDeviceMapping = []xmlInstanceDevice{{DeviceName: root, Ebs: xmlInstanceVolume{VolumeID: inst.VolumeID, Status: "attached", AttachTime: launch, DeleteOnTermination: true}}}
	x.NetworkInterfaces = []xmlENI{{
		NetworkInterfaceID: inst.ENIID, SubnetID: inst.SubnetID, VpcID: inst.VpcID, OwnerID: e.cfg.AccountID, Status: "in-use",
		MacAddress: macAddress(inst.ENIID), PrivateIPAddress: ip, PrivateDNSName: inst.PrivateDNS, SourceDestCheck: true, Groups: groups,
		Attachment:         xmlENIAttach{AttachmentID: "eni-attach-" + inst.ENIID[4:], Status: "attached", AttachTime: launch, DeleteOnTermination: true},
		PrivateIPAddresses: []xmlPrivateIP{{PrivateIPAddress: ip, PrivateDNSName: inst.PrivateDNS, Primary: true}},
		InterfaceType:      "interface",
	}}
	return x
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// macAddress derives a stable MAC address from an ENI id.
func macAddress(eni string) string {
	h := hashHex(eni, 10)
	return "02:" + h[0:2] + ":" + h[2:4] + ":" + h[4:6] + ":" + h[6:8] + ":" + h[8:10]
}

type terminateInstancesResponse struct {
	ec2Response
	Instances []xmlStateChange `xml:"instancesSet>item"`
}

type xmlStateChange struct {
	InstanceID    string   `xml:"instanceId"`
	CurrentState  xmlState `xml:"currentState"`
	PreviousState xmlState `xml:"previousState"`
}

func (e *Emulator) terminateInstances(q query) (any, error) {
	ids := q.list("InstanceId")
	if len(ids) == 0 {
		return nil, errMissingParameter("InstanceId")
	}
	if len(ids) > 1000 {
		return nil, errInvalidParameterValue("TerminateInstances accepts at most 1000 instance ids, got " + strconv.Itoa(len(ids)))
	}
	if err := e.checkInstanceIDs(ids); err != nil {
		return nil, err
	}
	out := &terminateInstancesResponse{}
	now := e.now()
	for _, id := range ids {
		inst := e.instances[id]
		prev := xmlState{Code: stateCode(inst.State), Name: inst.State}
		switch inst.State {
		case StatePending, StateRunning, StateStopping, StateStopped:
			e.beginShutdown(inst, now, reasonUserShutdown)
		}
		out.Instances = append(out.Instances, xmlStateChange{InstanceID: id, PreviousState: prev,
			CurrentState: xmlState{Code: stateCode(inst.State), Name: inst.State}})
	}
	return out, nil
}

type createTagsResponse struct {
	ec2Response
	Return bool `xml:"return"`
}

func (e *Emulator) createTags(q query) (any, error) {
	ids := q.list("ResourceId")
	if len(ids) == 0 {
		return nil, errMissingParameter("ResourceId")
	}
	tags := q.tags("Tag")
	for k := range tags {
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return nil, errInvalidParameterValue("Tag keys starting with 'aws:' are reserved for internal use")
		}
	}
	var targets []map[string]string
	for _, id := range ids {
		prefix, _, _ := strings.Cut(id, "-")
		var m map[string]string
		switch prefix {
		case "i":
			if err := e.checkInstanceIDs([]string{id}); err != nil {
				return nil, err
			}
			m = e.instances[id].Tags
		case "lt":
			lt, err := e.findTemplate(id, "")
			if err != nil {
				return nil, err
			}
			m = lt.Tags
		case "subnet":
			s := e.world.subnetByID(id)
			if s == nil {
				return nil, newError(0, "InvalidSubnetID.NotFound", "The subnet ID '"+id+"' does not exist")
			}
			m = s.Tags
		case "sg":
			g := e.world.groupByID(id)
			if g == nil {
				return nil, newError(0, "InvalidGroup.NotFound", "The security group '"+id+"' does not exist")
			}
			m = g.Tags
		case "ami":
			img := e.world.imageByID[id]
			if img == nil || img.OwnerID != e.cfg.AccountID {
				return nil, newError(0, "InvalidAMIID.NotFound", "The image id '["+id+"]' does not exist")
			}
			m = img.Tags
		default:
			return nil, newError(0, "InvalidID", "The ID '"+id+"' is not valid")
		}
		if len(m)+len(tags) > 50 {
			over := 0
			for k := range tags {
				if _, ok := m[k]; !ok {
					over++
				}
			}
			if len(m)+over > 50 {
				return nil, newError(0, "TagLimitExceeded", "The maximum number of tags for resource "+id+" has been reached.")
			}
		}
		targets = append(targets, m)
	}
	for _, m := range targets {
		for k, v := range tags {
			m[k] = v
		}
	}
	return &createTagsResponse{Return: true}, nil
}
