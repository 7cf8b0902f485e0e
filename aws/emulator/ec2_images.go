package emulator

import (
	"strings"
)

type describeImagesResponse struct {
	ec2Response
	Images    []xmlImage `xml:"imagesSet>item"`
	NextToken string     `xml:"nextToken,omitempty"`
}

type xmlImage struct {
	ImageID            string           `xml:"imageId"`
	ImageLocation      string           `xml:"imageLocation"`
	ImageState         string           `xml:"imageState"`
	ImageOwnerID       string           `xml:"imageOwnerId"`
	CreationDate       string           `xml:"creationDate"`
	IsPublic           bool             `xml:"isPublic"`
	Architecture       string           `xml:"architecture"`
	ImageType          string           `xml:"imageType"`
	PlatformDetails    string           `xml:"platformDetails"`
	UsageOperation     string           `xml:"usageOperation"`
	ImageOwnerAlias    string           `xml:"imageOwnerAlias,omitempty"`
	Name               string           `xml:"name"`
	Description        string           `xml:"description"`
	RootDeviceType     string           `xml:"rootDeviceType"`
	RootDeviceName     string           `xml:"rootDeviceName"`
	BlockDeviceMapping []xmlImageDevice `xml:"blockDeviceMapping>item"`
	VirtualizationType string           `xml:"virtualizationType"`
	Hypervisor         string           `xml:"hypervisor"`
	EnaSupport         bool             `xml:"enaSupport"`
	SriovNetSupport    string           `xml:"sriovNetSupport"`
	BootMode           string           `xml:"bootMode,omitempty"`
	Tags               []xmlTag         `xml:"tagSet>item"`
}

type xmlImageDevice struct {
	DeviceName string      `xml:"deviceName"`
	Ebs        xmlImageEbs `xml:"ebs"`
}

type xmlImageEbs struct {
	DeleteOnTermination bool   `xml:"deleteOnTermination"`
	SnapshotID          string `xml:"snapshotId"`
	VolumeSize          int    `xml:"volumeSize"`
	VolumeType          string `xml:"volumeType"`
	Encrypted           bool   `xml:"encrypted"`
}

func (img *image) field(name string) ([]string, bool) {
	switch name {
	case "image-id":
		return one(img.ID), true
	case "name":
		return one(img.Name), true
	case "description":
		return one(img.Description), true
	case "architecture":
		return one(img.Arch), true
	case "owner-id":
		return one(img.OwnerID), true
	case "owner-alias":
		if img.OwnerAlias == "" {
			return nil, true
		}
		return one(img.OwnerAlias), true
	case "state":
		return one("available"), true
	case "is-public":
		return one(boolString(img.Public)), true
	case "image-type":
		return one("machine"), true
	case "virtualization-type":
		return one("hvm"), true
	case "root-device-type":
		return one("ebs"), true
	case "root-device-name":
		return one(img.RootDevice), true
	case "hypervisor":
		return one("xen"), true
	case "platform-details":
		return one(linuxProductDescription), true
	case "creation-date":
		return one(ec2Time(img.Created)), true
	}
	return tagField(name, img.Tags)
}

func (e *Emulator) describeImages(q query) (any, error) {
	filters := parseFilters(q)
	if err := checkFilters(filters, (&image{}).field); err != nil {
		return nil, err
	}
	size, err := maxResults(q, 5, 1000, 1000)
	if err != nil {
		return nil, err
	}
	ids, owners := q.list("ImageId"), q.list("Owner")
	var missing []string
	for _, id := range ids {
		if !strings.HasPrefix(id, "ami-") {
			return nil, newError(0, "InvalidAMIID.Malformed", "Invalid id: \""+id+"\" (expecting \"ami-...\")")
		}
		if e.world.imageByID[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, newError(0, "InvalidAMIID.NotFound", "The image ids '["+strings.Join(missing, ", ")+"]' do not exist")
	}
	var selected []xmlImage
	for _, img := range e.world.images {
		if len(ids) > 0 && !contains(ids, img.ID) {
			continue
		}
		if len(owners) > 0 && !e.ownedBy(img, owners) {
			continue
		}
		if !matches(filters, img.field) {
			continue
		}
		selected = append(selected, img.xml())
	}
	start, end, next, perr := ec2Page(q, len(selected), size)
	if perr != nil {
		return nil, perr
	}
	return &describeImagesResponse{Images: selected[start:end], NextToken: next}, nil
}

// ownedBy matches DescribeImages' Owners: account ids, "self", or an owner alias ("amazon").
func (e *Emulator) ownedBy(img *image, owners []string) bool {
	for _, o := range owners {
		switch {
		case o == "self" && img.OwnerID == e.cfg.AccountID:
			return true
		case o == img.OwnerID:
			return true
		case img.OwnerAlias != "" && o == img.OwnerAlias:
			return true
		}
	}
	return false
}

func (img *image) xml() xmlImage {
	owner := img.OwnerID
	if img.OwnerAlias != "" {
		owner = img.OwnerAlias
	}
	boot := ""
	if img.Arch == "arm64" {
		boot = "uefi"
	}
	return xmlImage{
		ImageID: img.ID, ImageLocation: owner + "/" + img.Name, ImageState: "available", ImageOwnerID: img.OwnerID,
		CreationDate: ec2Time(img.Created), IsPublic: img.Public, Architecture: img.Arch, ImageType: "machine",
		PlatformDetails: linuxProductDescription, UsageOperation: "RunInstances", ImageOwnerAlias: img.OwnerAlias,
		Name: img.Name, Description: img.Description, RootDeviceType: "ebs", RootDeviceName: img.RootDevice,
		BlockDeviceMapping: []xmlImageDevice{{DeviceName: img.RootDevice, Ebs: xmlImageEbs{
			DeleteOnTermination: true, SnapshotID: hashID("snap", img.ID), VolumeSize: 20, VolumeType: "gp3"}}},
		VirtualizationType: "hvm", Hypervisor: "xen", EnaSupport: true, SriovNetSupport: "simple", BootMode: boot,
		Tags: tagSet(img.Tags),
	}
}
