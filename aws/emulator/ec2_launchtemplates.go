package emulator

import (
	"cmp"
	"regexp"
	"sort"
	"strconv"
	"time"
)

// launchTemplate is one launch template with its only version.
type launchTemplate struct {
	ID, Name string
	Created  time.Time
	Tags     map[string]string
	Data     templateData
}

// templateData is the part of RequestLaunchTemplateData that instances inherit.
type templateData struct {
	ImageID, InstanceType, UserData, KeyName string
	SecurityGroupIDs                         []string
	SecurityGroupNames                       []string
	ProfileName, ProfileArn                  string
	HTTPTokens, HTTPEndpoint                 string
	HTTPPutResponseHopLimit                  int
	HTTPProtocolIPv6, InstanceMetadataTags   string
	BlockDevices                             []blockDevice
	// Tags are the TagSpecifications by resource type (instance, volume, network-interface, ...).
	Tags              map[string]map[string]string
	MonitoringEnabled bool
	// Tenancy is the instances' tenancy: default (shared) or dedicated.
	Tenancy string
}

type blockDevice struct {
	DeviceName, VolumeType, KmsKeyID, SnapshotID string
	VolumeSize, Iops, Throughput                 int
	Encrypted, DeleteOnTermination               bool
}

func parseTemplateData(q query) templateData {
	d := templateData{
		ImageID: q.str("ImageId"), InstanceType: q.str("InstanceType"), UserData: q.str("UserData"), KeyName: q.str("KeyName"),
		SecurityGroupIDs: q.list("SecurityGroupId"), SecurityGroupNames: q.list("SecurityGroup"),
		ProfileName: q.str("IamInstanceProfile.Name"), ProfileArn: q.str("IamInstanceProfile.Arn"),
		HTTPTokens: q.str("MetadataOptions.HttpTokens"), HTTPEndpoint: q.str("MetadataOptions.HttpEndpoint"),
		HTTPProtocolIPv6: q.str("MetadataOptions.HttpProtocolIpv6"), InstanceMetadataTags: q.str("MetadataOptions.InstanceMetadataTags"),
		MonitoringEnabled: q.boolParam("Monitoring.Enabled"),
		Tenancy:           cmp.Or(q.str("Placement.Tenancy"), "default"),
	}
	d.HTTPPutResponseHopLimit, _ = strconv.Atoi(q.str("MetadataOptions.HttpPutResponseHopLimit"))
	for _, ni := range q.structs("NetworkInterface") {
		d.SecurityGroupIDs = append(d.SecurityGroupIDs, ni.list("SecurityGroupId")...)
	}
	for _, b := range q.structs("BlockDeviceMapping") {
		bd := blockDevice{DeviceName: b.str("DeviceName"), VolumeType: b.str("Ebs.VolumeType"), KmsKeyID: b.str("Ebs.KmsKeyId"),
			SnapshotID: b.str("Ebs.SnapshotId"), Encrypted: b.boolParam("Ebs.Encrypted"),
			DeleteOnTermination: !b.has("Ebs.DeleteOnTermination") || b.boolParam("Ebs.DeleteOnTermination")}
		bd.VolumeSize, _ = strconv.Atoi(b.str("Ebs.VolumeSize"))
		bd.Iops, _ = strconv.Atoi(b.str("Ebs.Iops"))
		bd.Throughput, _ = strconv.Atoi(b.str("Ebs.Throughput"))
		d.BlockDevices = append(d.BlockDevices, bd)
	}
	d.Tags = tagSpecifications(q)
	return d
}

// tagSpecifications reads a request's TagSpecification list: its tags by resource type.
func tagSpecifications(q query) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, ts := range q.structs("TagSpecification") {
		addTags(out, ts.str("ResourceType"), ts.tags("Tag"))
	}
	return out
}

func addTags(byType map[string]map[string]string, resourceType string, tags map[string]string) {
	if byType[resourceType] == nil {
		byType[resourceType] = map[string]string{}
	}
	for k, v := range tags {
		byType[resourceType][k] = v
	}
}

type xmlLaunchTemplate struct {
	CreateTime           string   `xml:"createTime"`
	CreatedBy            string   `xml:"createdBy"`
	DefaultVersionNumber int      `xml:"defaultVersionNumber"`
	LatestVersionNumber  int      `xml:"latestVersionNumber"`
	LaunchTemplateID     string   `xml:"launchTemplateId"`
	LaunchTemplateName   string   `xml:"launchTemplateName"`
	Tags                 []xmlTag `xml:"tagSet>item"`
}

func (e *Emulator) templateXML(lt *launchTemplate) xmlLaunchTemplate {
	return xmlLaunchTemplate{
		CreateTime: ec2Time(lt.Created), CreatedBy: "arn:aws:iam::" + e.cfg.AccountID + ":root",
		DefaultVersionNumber: 1, LatestVersionNumber: 1, LaunchTemplateID: lt.ID, LaunchTemplateName: lt.Name,
		Tags: tagSet(lt.Tags),
	}
}

type launchTemplateResponse struct {
	ec2Response
	LaunchTemplate xmlLaunchTemplate `xml:"launchTemplate"`
}

var templateNamePattern = regexp.MustCompile(`^[a-zA-Z0-9().\-/_]{3,128}$`)

func (e *Emulator) createLaunchTemplate(q query) (any, error) {
	if id, ok := e.ltTokens[q.str("ClientToken")]; ok && q.str("ClientToken") != "" {
		if lt := e.templates[id]; lt != nil {
			return &launchTemplateResponse{LaunchTemplate: e.templateXML(lt)}, nil
		}
	}
	name := q.str("LaunchTemplateName")
	if name == "" {
		return nil, errMissingParameter("LaunchTemplateName")
	}
	if !templateNamePattern.MatchString(name) {
		return nil, errInvalidParameterValue("Launch template name must be between 3 and 128 characters, and may contain letters, numbers, and the following characters: - ( ) . / _.'")
	}
	if !q.present("LaunchTemplateData") {
		return nil, errMissingParameter("LaunchTemplateData")
	}
	if e.templateByName(name) != nil {
		return nil, newError(0, "InvalidLaunchTemplateName.AlreadyExistsException", "Launch template name already in use.")
	}
	lt := &launchTemplate{ID: e.newID("lt", 17), Name: name, Created: e.now(), Tags: map[string]string{},
		Data: parseTemplateData(q.sub("LaunchTemplateData"))}
	for _, ts := range q.structs("TagSpecification") {
		if rt := ts.str("ResourceType"); rt != "launch-template" {
			return nil, errInvalidParameterValue("'" + rt + "' is not a valid taggable resource type for this operation.")
		}
		for k, v := range ts.tags("Tag") {
			lt.Tags[k] = v
		}
	}
	e.templates[lt.ID] = lt
	if tok := q.str("ClientToken"); tok != "" {
		e.ltTokens[tok] = lt.ID
	}
	return &launchTemplateResponse{LaunchTemplate: e.templateXML(lt)}, nil
}

func (e *Emulator) templateByName(name string) *launchTemplate {
	for _, lt := range e.templates {
		if lt.Name == name {
			return lt
		}
	}
	return nil
}

// findTemplate resolves a template by id or name with EC2's not-found errors.
func (e *Emulator) findTemplate(id, name string) (*launchTemplate, *apiError) {
	switch {
	case id != "":
		if lt := e.templates[id]; lt != nil {
			return lt, nil
		}
		if len(id) < 4 || id[:3] != "lt-" {
			return nil, newError(0, "InvalidLaunchTemplateId.Malformed", "The specified ID for the launch template ("+id+") is not valid.")
		}
		return nil, newError(0, "InvalidLaunchTemplateId.NotFound", "The specified launch template, with template ID "+id+", does not exist.")
	case name != "":
		if lt := e.templateByName(name); lt != nil {
			return lt, nil
		}
		return nil, newError(0, "InvalidLaunchTemplateName.NotFoundException", "The specified launch template, with template name "+name+", does not exist.")
	}
	return nil, errMissingParameter("LaunchTemplateId or LaunchTemplateName")
}

type describeLaunchTemplatesResponse struct {
	ec2Response
	LaunchTemplates []xmlLaunchTemplate `xml:"launchTemplates>item"`
	NextToken       string              `xml:"nextToken,omitempty"`
}

func (lt *launchTemplate) field(name string) ([]string, bool) {
	switch name {
	case "launch-template-name":
		return one(lt.Name), true
	case "create-time":
		return one(ec2Time(lt.Created)), true
	}
	return tagField(name, lt.Tags)
}

func (e *Emulator) describeLaunchTemplates(q query) (any, error) {
	filters := parseFilters(q)
	if err := checkFilters(filters, (&launchTemplate{}).field); err != nil {
		return nil, err
	}
	size, err := maxResults(q, 1, 200, 200)
	if err != nil {
		return nil, err
	}
	ids, names := q.list("LaunchTemplateId"), q.list("LaunchTemplateName")
	for _, id := range ids {
		if _, err := e.findTemplate(id, ""); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		if e.templateByName(n) == nil {
			return nil, newError(0, "InvalidLaunchTemplateName.NotFoundException", "At least one of the launch templates specified in the request does not exist.")
		}
	}
	all := make([]*launchTemplate, 0, len(e.templates))
	for _, lt := range e.templates {
		all = append(all, lt)
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].Created.Equal(all[j].Created) {
			return all[i].Created.Before(all[j].Created)
		}
		return all[i].ID < all[j].ID
	})
	var selected []xmlLaunchTemplate
	for _, lt := range all {
		if len(ids) > 0 && !contains(ids, lt.ID) || len(names) > 0 && !contains(names, lt.Name) {
			continue
		}
		if matches(filters, lt.field) {
			selected = append(selected, e.templateXML(lt))
		}
	}
	start, end, next, perr := ec2Page(q, len(selected), size)
	if perr != nil {
		return nil, perr
	}
	return &describeLaunchTemplatesResponse{LaunchTemplates: selected[start:end], NextToken: next}, nil
}

func (e *Emulator) deleteLaunchTemplate(q query) (any, error) {
	lt, err := e.findTemplate(q.str("LaunchTemplateId"), q.str("LaunchTemplateName"))
	if err != nil {
		return nil, err
	}
	delete(e.templates, lt.ID)
	return &launchTemplateResponse{LaunchTemplate: e.templateXML(lt)}, nil
}
