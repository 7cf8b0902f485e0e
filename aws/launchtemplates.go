package aws

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/journal"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// launchConfig is one resolved launch configuration. Each distinct one gets a launch template,
// named by its hash, so that equal configurations share a template.
type launchConfig struct {
	ClusterName        string
	ImageID            string
	UserData           string
	BlockDevices       []*awsv1.BlockDeviceMapping
	Metadata           awsv1.MetadataOptions
	SecurityGroups     []string
	InstanceProfile    string
	AssociatePublicIP  *bool
	DetailedMonitoring bool
	Tags               map[string]string
	// Tenancy is "dedicated" for dedicated instances, "" for shared ones (EC2's default).
	Tenancy string `json:",omitempty"`
	// The EC2NodeClass's network and CPU settings (unset ones leave EC2's defaults).
	IPPrefixCount        *int32                    `json:",omitempty"`
	ConnectionTracking   *awsv1.ConnectionTracking `json:",omitempty"`
	NetworkInterfaces    []*awsv1.NetworkInterface `json:",omitempty"`
	NestedVirtualization string                    `json:",omitempty"`
	// NodeClass names the EC2NodeClass, for its metrics; it is not part of the template.
	NodeClass string `json:"-"`
}

// launchTemplatePrefix starts the name of every launch template the provider creates.
const launchTemplatePrefix = "nodepilot/"

// name is the launch template's deterministic name: the prefix and a hash of the configuration.
func (c *launchConfig) name() string {
	data, err := json.Marshal(c)
	if err != nil {
		// The configuration is strings, booleans, numbers and quantities: it always encodes.
		panic("encoding launch configuration: " + err.Error())
	}
	sum := sha256.Sum256(data)
	return launchTemplatePrefix + hex.EncodeToString(sum[:16])
}

// launchTemplate makes sure the template of cfg exists and returns its name. A template created
// (or found) once is remembered; creating one that exists is not an error.
func (p *Provider) launchTemplate(ctx context.Context, cfg *launchConfig) (string, error) {
	name := cfg.name()
	if _, ok := p.templateCache.get(name); ok {
		return name, nil
	}
	// As Karpenter, the user data's size is measured just before a template is made with it, so
	// that one EC2 refuses as too large is measured too.
	if raw, err := base64.StdEncoding.DecodeString(cfg.UserData); err == nil {
		p.opts.Measure(journal.Measurement{Measure: journal.MeasureUserDataBytes, NodeClass: cfg.NodeClass, Value: float64(len(raw))})
	}
	_, err := p.clients.EC2.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: sdkaws.String(name),
		LaunchTemplateData: cfg.templateData(),
		TagSpecifications: []ec2types.TagSpecification{{
			ResourceType: ec2types.ResourceTypeLaunchTemplate,
			Tags:         ec2Tags(cfg.Tags),
		}},
	})
	if err != nil && errorCode(err) != "InvalidLaunchTemplateName.AlreadyExistsException" {
		return "", fmt.Errorf("ec2 CreateLaunchTemplate %q (image %s): %w", name, cfg.ImageID, err)
	}
	p.templateCache.set(name, struct{}{})
	return name, nil
}

// templateData is the EC2 form of the configuration.
func (c *launchConfig) templateData() *ec2types.RequestLaunchTemplateData {
	data := &ec2types.RequestLaunchTemplateData{
		ImageId:             sdkaws.String(c.ImageID),
		BlockDeviceMappings: blockDeviceMappings(c.BlockDevices),
		MetadataOptions: &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{
			HttpEndpoint:            ec2types.LaunchTemplateInstanceMetadataEndpointState(ptr.Deref(c.Metadata.HTTPEndpoint, "")),
			HttpProtocolIpv6:        ec2types.LaunchTemplateInstanceMetadataProtocolIpv6(ptr.Deref(c.Metadata.HTTPProtocolIPv6, "")),
			HttpPutResponseHopLimit: int32Ptr(c.Metadata.HTTPPutResponseHopLimit),
			HttpTokens:              ec2types.LaunchTemplateHttpTokensState(ptr.Deref(c.Metadata.HTTPTokens, "")),
		},
		Monitoring: &ec2types.LaunchTemplatesMonitoringRequest{Enabled: sdkaws.Bool(c.DetailedMonitoring)},
	}
	if c.UserData != "" {
		data.UserData = sdkaws.String(c.UserData)
	}
	if c.Tenancy != "" {
		data.Placement = &ec2types.LaunchTemplatePlacementRequest{Tenancy: ec2types.Tenancy(c.Tenancy)}
	}
	if c.InstanceProfile != "" {
		data.IamInstanceProfile = &ec2types.LaunchTemplateIamInstanceProfileSpecificationRequest{Name: sdkaws.String(c.InstanceProfile)}
	}
	if c.NestedVirtualization != "" {
		data.CpuOptions = &ec2types.LaunchTemplateCpuOptionsRequest{NestedVirtualization: ec2types.NestedVirtualizationSpecification(c.NestedVirtualization)}
	}
	data.NetworkInterfaces = c.networkInterfaces()
	if data.NetworkInterfaces == nil {
		data.SecurityGroupIds = c.SecurityGroups
	}
	return data
}

// networkInterfaces are the template's interfaces, as Karpenter writes them: the EC2NodeClass's
// own (an EFA-only one gets no prefixes, public address or connection tracking), or one primary
// interface when a public address, prefixes or connection tracking are asked for; nil when none
// is (the groups are then the template's).
func (c *launchConfig) networkInterfaces() []ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest {
	var tracking *ec2types.ConnectionTrackingSpecificationRequest
	if ct := c.ConnectionTracking; ct != nil {
		tracking = &ec2types.ConnectionTrackingSpecificationRequest{TcpEstablishedTimeout: ct.TCPEstablishedTimeout,
			UdpStreamTimeout: ct.UDPStreamTimeout, UdpTimeout: ct.UDPTimeout}
	}
	if len(c.NetworkInterfaces) == 0 {
		if c.AssociatePublicIP == nil && c.IPPrefixCount == nil && tracking == nil {
			return nil
		}
		return []ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{{DeviceIndex: sdkaws.Int32(0),
			AssociatePublicIpAddress: c.AssociatePublicIP, Ipv4PrefixCount: c.IPPrefixCount, Groups: c.SecurityGroups,
			ConnectionTrackingSpecification: tracking}}
	}
	out := make([]ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest, 0, len(c.NetworkInterfaces))
	for _, ni := range c.NetworkInterfaces {
		req := ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{NetworkCardIndex: sdkaws.Int32(ni.NetworkCardIndex),
			DeviceIndex: sdkaws.Int32(ni.DeviceIndex), InterfaceType: sdkaws.String(string(ni.InterfaceType)), Groups: c.SecurityGroups}
		// EC2 refuses these on an EFA-only interface.
		if ni.InterfaceType != awsv1.InterfaceTypeEFAOnly {
			req.Ipv4PrefixCount, req.AssociatePublicIpAddress, req.ConnectionTrackingSpecification = c.IPPrefixCount, c.AssociatePublicIP, tracking
		}
		out = append(out, req)
	}
	return out
}

func blockDeviceMappings(mappings []*awsv1.BlockDeviceMapping) []ec2types.LaunchTemplateBlockDeviceMappingRequest {
	var out []ec2types.LaunchTemplateBlockDeviceMappingRequest
	for _, m := range mappings {
		if m == nil {
			continue
		}
		req := ec2types.LaunchTemplateBlockDeviceMappingRequest{DeviceName: m.DeviceName}
		if e := m.EBS; e != nil {
			req.Ebs = &ec2types.LaunchTemplateEbsBlockDeviceRequest{
				DeleteOnTermination:      e.DeleteOnTermination,
				Encrypted:                e.Encrypted,
				Iops:                     int32Ptr(e.IOPS),
				KmsKeyId:                 e.KMSKeyID,
				SnapshotId:               e.SnapshotID,
				Throughput:               int32Ptr(e.Throughput),
				VolumeInitializationRate: e.VolumeInitializationRate,
				VolumeSize:               gibibytes(e.VolumeSize),
				VolumeType:               ec2types.VolumeType(ptr.Deref(e.VolumeType, "")),
			}
		}
		out = append(out, req)
	}
	return out
}

// gibibytes rounds a volume size up to whole GiB, as EC2 takes it.
func gibibytes(q *resource.Quantity) *int32 {
	if q == nil {
		return nil
	}
	const gib = 1 << 30
	return sdkaws.Int32(int32((q.Value() + gib - 1) / gib))
}

func int32Ptr(v *int64) *int32 {
	if v == nil {
		return nil
	}
	return sdkaws.Int32(int32(*v))
}

// defaultBlockDevices are the volumes of an AMI family when the EC2NodeClass names none: an
// encrypted gp3 root volume (and Bottlerocket's data volume). Custom AMIs keep their own.
func defaultBlockDevices(family string) []*awsv1.BlockDeviceMapping {
	volume := func(device, size string) *awsv1.BlockDeviceMapping {
		q := resource.MustParse(size)
		return &awsv1.BlockDeviceMapping{DeviceName: ptr.To(device), EBS: &awsv1.BlockDevice{
			VolumeSize: &q, VolumeType: ptr.To("gp3"), Encrypted: ptr.To(true), DeleteOnTermination: ptr.To(true),
		}}
	}
	switch {
	case family == awsv1.AMIFamilyBottlerocket:
		return []*awsv1.BlockDeviceMapping{volume("/dev/xvda", "4Gi"), volume("/dev/xvdb", "20Gi")}
	case awsv1.IsWindows(family):
		return []*awsv1.BlockDeviceMapping{volume("/dev/sda1", "50Gi")}
	case family == awsv1.AMIFamilyCustom:
		return nil
	default:
		return []*awsv1.BlockDeviceMapping{volume("/dev/xvda", "20Gi")}
	}
}

// metadataOptions are the EC2NodeClass's instance metadata options with the CRD's defaults
// (endpoint enabled, IPv6 disabled, hop limit 1, IMDSv2 tokens required) for unset fields.
func metadataOptions(nc *awsv1.EC2NodeClass) awsv1.MetadataOptions {
	out := awsv1.MetadataOptions{}
	if m := nc.Spec.MetadataOptions; m != nil {
		out = *m.DeepCopy()
	}
	if out.HTTPEndpoint == nil {
		out.HTTPEndpoint = ptr.To(awsv1.DefaultHTTPEndpoint)
	}
	if out.HTTPProtocolIPv6 == nil {
		out.HTTPProtocolIPv6 = ptr.To(awsv1.DefaultHTTPProtocolIPv6)
	}
	if out.HTTPPutResponseHopLimit == nil {
		out.HTTPPutResponseHopLimit = ptr.To(awsv1.DefaultHTTPPutResponseHopLimit)
	}
	if out.HTTPTokens == nil {
		out.HTTPTokens = ptr.To(awsv1.DefaultHTTPTokens)
	}
	return out
}

// ec2Tags turns a map into EC2 tags, sorted by key.
func ec2Tags(tags map[string]string) []ec2types.Tag {
	out := make([]ec2types.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, ec2types.Tag{Key: sdkaws.String(k), Value: sdkaws.String(tags[k])})
	}
	return out
}
