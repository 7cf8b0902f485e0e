package aws

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// fetchInstanceTypes reads every HVM x86_64 and arm64 instance type of the region from
// DescribeInstanceTypes (paginated) and converts them, sorted by name.
func fetchInstanceTypes(ctx context.Context, api EC2API) ([]instancetype.Info, error) {
	input := &ec2.DescribeInstanceTypesInput{
		Filters: []ec2types.Filter{
			{Name: sdkaws.String("supported-virtualization-type"), Values: []string{"hvm"}},
			{Name: sdkaws.String("processor-info.supported-architecture"), Values: []string{"x86_64", "arm64"}},
		},
		MaxResults: sdkaws.Int32(100),
	}
	var pages [][]ec2types.InstanceTypeInfo
	paginator := ec2.NewDescribeInstanceTypesPaginator(api, input)
	for paginator.HasMorePages() {
		page, err := paginator.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ec2 DescribeInstanceTypes (page %d): %w", len(pages)+1, err)
		}
		pages = append(pages, page.InstanceTypes)
	}
	infos := infosFromPages(pages)
	if len(infos) == 0 {
		return nil, fmt.Errorf("ec2 DescribeInstanceTypes: no x86_64 or arm64 HVM instance types listed")
	}
	return infos, nil
}

// fetchZones reads the zones each instance type is offered in from
// DescribeInstanceTypeOfferings (paginated).
func fetchZones(ctx context.Context, api EC2API) (map[string][]string, error) {
	input := &ec2.DescribeInstanceTypeOfferingsInput{
		LocationType: ec2types.LocationTypeAvailabilityZone,
		MaxResults:   sdkaws.Int32(1000),
	}
	zones := map[string][]string{}
	paginator := ec2.NewDescribeInstanceTypeOfferingsPaginator(api, input)
	for paginator.HasMorePages() {
		page, err := paginator.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ec2 DescribeInstanceTypeOfferings: %w", err)
		}
		for _, o := range page.InstanceTypeOfferings {
			if o.Location != nil {
				zones[string(o.InstanceType)] = append(zones[string(o.InstanceType)], *o.Location)
			}
		}
	}
	if len(zones) == 0 {
		return nil, fmt.Errorf("ec2 DescribeInstanceTypeOfferings: no offerings listed")
	}
	for name, z := range zones {
		slices.Sort(z)
		zones[name] = slices.Compact(z)
	}
	return zones, nil
}

// infosFromPages converts DescribeInstanceTypes pages, skipping the types it cannot use, and
// sorts them by name.
func infosFromPages(pages [][]ec2types.InstanceTypeInfo) []instancetype.Info {
	n := 0
	for _, page := range pages {
		n += len(page)
	}
	infos := make([]instancetype.Info, 0, n)
	for _, page := range pages {
		for i := range page {
			if info, ok := infoFromEC2(&page[i]); ok {
				infos = append(infos, info)
			}
		}
	}
	slices.SortFunc(infos, func(a, b instancetype.Info) int { return strings.Compare(a.Name, b.Name) })
	return infos
}

// instanceTypeName splits a type name into category, generation and size, as Karpenter labels
// them: "m7i-flex.large" is category m, generation 7, family m7i-flex, size large; the high
// memory "u-6tb1.56xlarge" is category u, generation 1.
var instanceTypeName = regexp.MustCompile(`^([a-z]+)(?:-[0-9]+tb)?([0-9]+)[^.]*\.(.+)$`)

// infoFromEC2 converts what DescribeInstanceTypes says about a type into instancetype.Info.
// ok is false for a type without an x86_64 or arm64 processor, vCPUs or memory.
func infoFromEC2(t *ec2types.InstanceTypeInfo) (info instancetype.Info, ok bool) {
	name := string(t.InstanceType)
	m := instanceTypeName.FindStringSubmatch(name)
	if m == nil || t.VCpuInfo == nil || t.MemoryInfo == nil || t.ProcessorInfo == nil {
		return instancetype.Info{}, false
	}
	arch := archOf(t.ProcessorInfo.SupportedArchitectures)
	if arch == "" {
		return instancetype.Info{}, false
	}
	generation, _ := strconv.Atoi(m[2])
	info = instancetype.Info{
		Name:       name,
		Family:     name[:strings.IndexByte(name, '.')],
		Category:   m[1],
		Generation: generation,
		Size:       m[3],
		Arch:       arch,
		VCPUs:      int64(sdkaws.ToInt32(t.VCpuInfo.DefaultVCpus)),
		MemoryMiB:  sdkaws.ToInt64(t.MemoryInfo.SizeInMiB),
		Hypervisor: string(t.Hypervisor),
	}
	if t.GpuInfo != nil && len(t.GpuInfo.Gpus) > 0 {
		gpu := t.GpuInfo.Gpus[0]
		info.GPUCount = int64(sdkaws.ToInt32(gpu.Count))
		info.GPUName = strings.ToLower(strings.ReplaceAll(sdkaws.ToString(gpu.Name), " ", "-"))
		if gpu.MemoryInfo != nil {
			info.GPUMemoryMiB = int64(sdkaws.ToInt32(gpu.MemoryInfo.SizeInMiB))
		}
	}
	if n := t.NetworkInfo; n != nil {
		info.MaxPodsENI = maxPodsENI(n)
		for _, card := range n.NetworkCards {
			info.NetworkGbps += sdkaws.ToFloat64(card.BaselineBandwidthInGbps)
		}
		if n.EncryptionInTransitSupported != nil {
			info.EncryptionInTransit = strconv.FormatBool(*n.EncryptionInTransitSupported)
		}
		info.NetworkCards = int64(sdkaws.ToInt32(n.MaximumNetworkCards))
		if sdkaws.ToBool(n.EfaSupported) && n.EfaInfo != nil {
			info.EFAInterfaces = int64(sdkaws.ToInt32(n.EfaInfo.MaximumEfaInterfaces))
		}
	}
	labelFacts(t, &info)
	return info, true
}

// labelFacts reads what Karpenter's well-known labels say of a type, as Karpenter reads it: the
// CPU's maker and sustained clock, the maximum EBS bandwidth of a type EBS-optimized by default,
// the NVMe instance store, and a single inference accelerator or Neuron device.
func labelFacts(t *ec2types.InstanceTypeInfo, info *instancetype.Info) {
	info.CPUManufacturer = sdkaws.ToString(t.ProcessorInfo.Manufacturer)
	info.NestedVirtualization = slices.Contains(t.ProcessorInfo.SupportedFeatures, ec2types.SupportedAdditionalProcessorFeatureNestedVirtualization)
	info.CPUSustainedClockMHz = int64(math.Round(sdkaws.ToFloat64(t.ProcessorInfo.SustainedClockSpeedInGhz) * 1000))
	if e := t.EbsInfo; e != nil && e.EbsOptimizedInfo != nil && e.EbsOptimizedSupport == ec2types.EbsOptimizedSupportDefault {
		info.EBSBandwidthMbps = int64(sdkaws.ToInt32(e.EbsOptimizedInfo.MaximumBandwidthInMbps))
	}
	if s := t.InstanceStorageInfo; s != nil && s.NvmeSupport != ec2types.EphemeralNvmeSupportUnsupported {
		info.LocalNVMeGB = sdkaws.ToInt64(s.TotalSizeInGB)
	}
	switch {
	case t.NeuronInfo != nil && len(t.NeuronInfo.NeuronDevices) == 1:
		d := t.NeuronInfo.NeuronDevices[0]
		info.AcceleratorName, info.AcceleratorManufacturer, info.AcceleratorCount = sdkaws.ToString(d.Name), "AWS", int64(sdkaws.ToInt32(d.Count))
	case t.NeuronInfo == nil && t.InferenceAcceleratorInfo != nil && len(t.InferenceAcceleratorInfo.Accelerators) == 1:
		a := t.InferenceAcceleratorInfo.Accelerators[0]
		info.AcceleratorName, info.AcceleratorManufacturer, info.AcceleratorCount = sdkaws.ToString(a.Name), sdkaws.ToString(a.Manufacturer), int64(sdkaws.ToInt32(a.Count))
	}
}

// archOf returns the Kubernetes architecture of a type's processor, or "" if unsupported.
func archOf(archs []ec2types.ArchitectureType) string {
	for _, a := range archs {
		switch a {
		case ec2types.ArchitectureTypeX8664:
			return karpv1.ArchitectureAmd64
		case ec2types.ArchitectureTypeArm64:
			return karpv1.ArchitectureArm64
		}
	}
	return ""
}

// maxPodsENI is ENIs on the default network card x (IPv4 addresses per ENI - 1) + 2: the pods
// the VPC CNI can give an address.
func maxPodsENI(n *ec2types.NetworkInfo) int64 {
	enis := int64(sdkaws.ToInt32(n.MaximumNetworkInterfaces))
	def := sdkaws.ToInt32(n.DefaultNetworkCardIndex)
	for _, card := range n.NetworkCards {
		if sdkaws.ToInt32(card.NetworkCardIndex) == def && card.MaximumNetworkInterfaces != nil {
			enis = int64(*card.MaximumNetworkInterfaces)
		}
	}
	return enis*(int64(sdkaws.ToInt32(n.Ipv4AddressesPerInterface))-1) + 2
}

// typeQuery is what of an EC2NodeClass shapes its instance types: the kubelet and volume
// options, the zones it has subnets in and the architectures it has AMIs for.
type typeQuery struct {
	opts   instancetype.Options
	zones  []string
	arches []string
	needs  instancetype.Needs
}

// buildInstanceTypes turns the refreshed EC2 facts into the engine's instance types for one
// node class: one offering per zone the type is offered in and the node class has a subnet in,
// and capacity type, priced and marked available or not. Types without an offering, or whose
// architecture has no AMI, are left out.
func buildInstanceTypes(d *ec2Snapshot, q typeQuery, unavailable map[offering]bool) []*cloudprovider.InstanceType {
	out := make([]*cloudprovider.InstanceType, 0, len(d.infos))
	for _, info := range d.infos {
		if !slices.Contains(q.arches, info.Arch) || !q.needs.Met(info) {
			continue
		}
		offerings := d.offerings(info.Name, q.zones, unavailable)
		if len(offerings) == 0 {
			continue
		}
		out = append(out, instancetype.New(info, offerings, q.opts))
	}
	return out
}

// offerings builds the offerings of one type in the given zones.
func (d *ec2Snapshot) offerings(name string, zones []string, unavailable map[offering]bool) cloudprovider.Offerings {
	var out cloudprovider.Offerings
	od, hasOD := d.onDemand[name]
	for _, zone := range d.zones[name] {
		if !slices.Contains(zones, zone) {
			continue
		}
		spot, hasSpot := d.spotPrice(name, zone, od, hasOD)
		for _, o := range []struct {
			capacityType string
			price        price
			has          bool
		}{{karpv1.CapacityTypeOnDemand, od, hasOD}, {karpv1.CapacityTypeSpot, spot, hasSpot}} {
			out = append(out, cloudprovider.Offering{Zone: zone, CapacityType: o.capacityType, Price: o.price.usd, PriceSource: o.price.source,
				Available: o.has && !unavailable[offering{o.capacityType, name, zone}]})
		}
	}
	return out
}

// spotPrice is the spot price of a type in a zone: the latest spot price history quote; before
// the history was ever read, a synthetic price derived from the on-demand price. Once the
// history is known, a type and zone it does not quote have no spot offering.
func (d *ec2Snapshot) spotPrice(name, zone string, od price, hasOD bool) (price, bool) {
	if !d.spotKnown {
		if !hasOD {
			return price{}, false
		}
		return price{usd: catalog.SyntheticSpotPrice(name, zone, od.usd), source: cloudprovider.PriceSource{Kind: cloudprovider.PriceSynthetic}}, true
	}
	p, ok := d.spot[name][zone]
	return p, ok
}
