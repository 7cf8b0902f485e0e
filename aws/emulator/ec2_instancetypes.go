package emulator

import (
	"strconv"
	"strings"
	"unicode"
)

type describeInstanceTypesResponse struct {
	ec2Response
	InstanceTypes []xmlInstanceType `xml:"instanceTypeSet>item"`
	NextToken     string            `xml:"nextToken,omitempty"`
}

type xmlInstanceType struct {
	InstanceType                  string                  `xml:"instanceType"`
	CurrentGeneration             bool                    `xml:"currentGeneration"`
	FreeTierEligible              bool                    `xml:"freeTierEligible"`
	SupportedUsageClasses         []string                `xml:"supportedUsageClasses>item"`
	SupportedRootDeviceTypes      []string                `xml:"supportedRootDeviceTypes>item"`
	SupportedVirtualizationTypes  []string                `xml:"supportedVirtualizationTypes>item"`
	BareMetal                     bool                    `xml:"bareMetal"`
	Hypervisor                    string                  `xml:"hypervisor,omitempty"`
	ProcessorInfo                 xmlProcessor            `xml:"processorInfo"`
	VCpuInfo                      xmlVCpu                 `xml:"vCpuInfo"`
	MemoryInfo                    xmlMemory               `xml:"memoryInfo"`
	InstanceStorageSupported      bool                    `xml:"instanceStorageSupported"`
	InstanceStorageInfo           *xmlInstanceStorageInfo `xml:"instanceStorageInfo,omitempty"`
	EbsInfo                       xmlEbsInfo              `xml:"ebsInfo"`
	NetworkInfo                   xmlNetworkInfo          `xml:"networkInfo"`
	GpuInfo                       *xmlGpuInfo             `xml:"gpuInfo,omitempty"`
	InferenceAcceleratorInfo      *xmlAcceleratorInfo     `xml:"inferenceAcceleratorInfo,omitempty"`
	NeuronInfo                    *xmlNeuronInfo          `xml:"neuronInfo,omitempty"`
	HibernationSupported          bool                    `xml:"hibernationSupported"`
	BurstablePerformanceSupported bool                    `xml:"burstablePerformanceSupported"`
	DedicatedHostsSupported       bool                    `xml:"dedicatedHostsSupported"`
	AutoRecoverySupported         bool                    `xml:"autoRecoverySupported"`
	SupportedBootModes            []string                `xml:"supportedBootModes>item"`
	NitroEnclavesSupport          string                  `xml:"nitroEnclavesSupport"`
	NitroTpmSupport               string                  `xml:"nitroTpmSupport"`
}

type xmlProcessor struct {
	SupportedArchitectures   []string `xml:"supportedArchitectures>item"`
	SupportedFeatures        []string `xml:"supportedFeatures>item,omitempty"`
	Manufacturer             string   `xml:"manufacturer,omitempty"`
	SustainedClockSpeedInGhz string   `xml:"sustainedClockSpeedInGhz,omitempty"`
}

type xmlVCpu struct {
	DefaultVCpus          int64 `xml:"defaultVCpus"`
	DefaultCores          int64 `xml:"defaultCores"`
	DefaultThreadsPerCore int64 `xml:"defaultThreadsPerCore"`
}

type xmlMemory struct {
	SizeInMiB int64 `xml:"sizeInMiB"`
}

type xmlEbsInfo struct {
	EbsOptimizedSupport string               `xml:"ebsOptimizedSupport"`
	EbsOptimizedInfo    *xmlEbsOptimizedInfo `xml:"ebsOptimizedInfo,omitempty"`
	EncryptionSupport   string               `xml:"encryptionSupport"`
	NvmeSupport         string               `xml:"nvmeSupport"`
}

type xmlEbsOptimizedInfo struct {
	BaselineBandwidthInMbps int64 `xml:"baselineBandwidthInMbps"`
	MaximumBandwidthInMbps  int64 `xml:"maximumBandwidthInMbps"`
}

type xmlInstanceStorageInfo struct {
	TotalSizeInGB int64  `xml:"totalSizeInGB"`
	NvmeSupport   string `xml:"nvmeSupport"`
}

type xmlAcceleratorInfo struct {
	Accelerators []xmlAccelerator `xml:"accelerators>item"`
}

type xmlAccelerator struct {
	Name         string `xml:"name"`
	Manufacturer string `xml:"manufacturer"`
	Count        int64  `xml:"count"`
}

type xmlNeuronInfo struct {
	NeuronDevices []xmlNeuronDevice `xml:"neuronDevices>item"`
}

type xmlNeuronDevice struct {
	Name     string      `xml:"name"`
	Count    int64       `xml:"count"`
	CoreInfo xmlCoreInfo `xml:"coreInfo"`
}

type xmlCoreInfo struct {
	Count   int64 `xml:"count"`
	Version int64 `xml:"version"`
}

// neuronCores are the NeuronCores per device of each Neuron device, and their version, as EC2
// describes them (moto's DescribeInstanceTypes dump has the same): Karpenter counts a type's
// aws.amazon.com/neuroncore from them.
var neuronCores = map[string]xmlCoreInfo{
	"Inferentia": {Count: 4, Version: 1}, "Inferentia2": {Count: 2, Version: 2},
	"Trainium": {Count: 2, Version: 2}, "Trainium2": {Count: 8, Version: 3},
}

type xmlNetworkInfo struct {
	NetworkPerformance           string           `xml:"networkPerformance"`
	MaximumNetworkInterfaces     int64            `xml:"maximumNetworkInterfaces"`
	MaximumNetworkCards          int64            `xml:"maximumNetworkCards"`
	DefaultNetworkCardIndex      int64            `xml:"defaultNetworkCardIndex"`
	NetworkCards                 []xmlNetworkCard `xml:"networkCards>item"`
	Ipv4AddressesPerInterface    int64            `xml:"ipv4AddressesPerInterface"`
	Ipv6AddressesPerInterface    int64            `xml:"ipv6AddressesPerInterface"`
	Ipv6Supported                bool             `xml:"ipv6Supported"`
	EnaSupport                   string           `xml:"enaSupport"`
	EfaSupported                 bool             `xml:"efaSupported"`
	EncryptionInTransitSupported *bool            `xml:"encryptionInTransitSupported,omitempty"`
	EfaInfo                      *xmlEfaInfo      `xml:"efaInfo,omitempty"`
}

type xmlEfaInfo struct {
	MaximumEfaInterfaces int64 `xml:"maximumEfaInterfaces"`
}

type xmlNetworkCard struct {
	NetworkCardIndex         int64  `xml:"networkCardIndex"`
	NetworkPerformance       string `xml:"networkPerformance"`
	MaximumNetworkInterfaces int64  `xml:"maximumNetworkInterfaces"`
	BaselineBandwidthInGbps  string `xml:"baselineBandwidthInGbps"`
	PeakBandwidthInGbps      string `xml:"peakBandwidthInGbps"`
}

type xmlGpuInfo struct {
	Gpus                []xmlGpu `xml:"gpus>item"`
	TotalGpuMemoryInMiB int64    `xml:"totalGpuMemoryInMiB"`
}

type xmlGpu struct {
	Name         string    `xml:"name"`
	Manufacturer string    `xml:"manufacturer"`
	Count        int64     `xml:"count"`
	MemoryInfo   xmlMemory `xml:"memoryInfo"`
}

func (e *Emulator) describeInstanceTypes(q query) (any, error) {
	filters := parseFilters(q)
	if err := checkFilters(filters, (&instanceType{}).field); err != nil {
		return nil, err
	}
	size, err := maxResults(q, 5, 100, 100)
	if err != nil {
		return nil, err
	}
	names := q.list("InstanceType")
	var missing []string
	for _, n := range names {
		if _, ok := e.world.typeByName[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, newError(0, "InvalidInstanceType", "The following supplied instance types do not exist: ["+strings.Join(missing, ", ")+"]")
	}
	var selected []*instanceType
	for _, t := range e.world.types {
		if len(names) > 0 && !contains(names, t.Name) {
			continue
		}
		if matches(filters, t.field) {
			selected = append(selected, t)
		}
	}
	start, end, next, perr := ec2Page(q, len(selected), size)
	if perr != nil {
		return nil, perr
	}
	out := &describeInstanceTypesResponse{NextToken: next}
	for _, t := range selected[start:end] {
		out.InstanceTypes = append(out.InstanceTypes, t.xml())
	}
	return out, nil
}

// ec2Arch is EC2's spelling of the catalog's architecture.
func (t *instanceType) ec2Arch() string {
	if t.Arch == "arm64" {
		return "arm64"
	}
	return "x86_64"
}

func (t *instanceType) bareMetal() bool { return strings.HasPrefix(t.Size, "metal") }

func (t *instanceType) burstable() bool { return strings.HasPrefix(t.Family, "t") }

// networkPerformance describes the bandwidth as EC2 does. Below 10 Gbps a type can burst: to
// 5 Gbps (burstable families), 25 Gbps (network-optimized n families), 10 Gbps (up to the 5th
// generation) or 12.5 Gbps. The burst figures are a rule of thumb, not catalog data.
func (t *instanceType) networkPerformance() (text string, peak float64) {
	g := t.NetworkGbps
	if g >= 10 {
		return formatGbps(g) + " Gigabit", g
	}
	attrs := strings.TrimLeftFunc(strings.TrimLeftFunc(t.Family, unicode.IsLetter), unicode.IsDigit)
	switch {
	case t.burstable():
		peak = 5
	case strings.Contains(attrs, "n"):
		peak = 25
	case t.Generation <= 5:
		peak = 10
	default:
		peak = 12.5
	}
	peak = max(peak, g)
	return "Up to " + formatGbps(peak) + " Gigabit", peak
}

func formatGbps(g float64) string { return strconv.FormatFloat(g, 'f', -1, 64) }

func (t *instanceType) xml() xmlInstanceType {
	threads := int64(2)
	if t.Arch == "arm64" || t.VCPUs == 1 {
		threads = 1
	}
	perf, peak := t.networkPerformance()
	boot := []string{"legacy-bios", "uefi"}
	if t.Arch == "arm64" {
		boot = []string{"uefi"}
	}
	x := xmlInstanceType{
		InstanceType:                 t.Name,
		CurrentGeneration:            t.CurrentGeneration,
		FreeTierEligible:             t.Name == "t2.micro" || t.Name == "t3.micro",
		SupportedUsageClasses:        []string{"on-demand", "spot"},
		SupportedRootDeviceTypes:     []string{"ebs"},
		SupportedVirtualizationTypes: []string{"hvm"},
		BareMetal:                    t.bareMetal(),
		Hypervisor:                   t.Hypervisor,
		ProcessorInfo:                xmlProcessor{SupportedArchitectures: []string{t.ec2Arch()}, Manufacturer: t.CPUManufacturer},
		VCpuInfo:                     xmlVCpu{DefaultVCpus: t.VCPUs, DefaultCores: max(1, t.VCPUs/threads), DefaultThreadsPerCore: threads},
		MemoryInfo:                   xmlMemory{SizeInMiB: t.MemoryMiB},
		EbsInfo:                      xmlEbsInfo{EbsOptimizedSupport: "supported", EncryptionSupport: "supported", NvmeSupport: "required"},
		NetworkInfo: xmlNetworkInfo{
			NetworkPerformance: perf, MaximumNetworkInterfaces: t.ENIs, MaximumNetworkCards: 1,
			NetworkCards: []xmlNetworkCard{{NetworkPerformance: perf, MaximumNetworkInterfaces: t.ENIs,
				BaselineBandwidthInGbps: formatGbps(t.NetworkGbps), PeakBandwidthInGbps: formatGbps(peak)}},
			Ipv4AddressesPerInterface: t.IPv4PerENI, Ipv6AddressesPerInterface: t.IPv4PerENI, Ipv6Supported: true,
			EnaSupport: "required",
		},
		HibernationSupported:          !t.bareMetal() && t.GPUCount == 0,
		BurstablePerformanceSupported: t.burstable(),
		DedicatedHostsSupported:       !t.burstable(),
		AutoRecoverySupported:         true,
		SupportedBootModes:            boot,
		NitroEnclavesSupport:          "unsupported",
		NitroTpmSupport:               "supported",
	}
	// The catalog's facts, where it has them (PROVENANCE.md): what is unknown is left out.
	if t.NestedVirtualization {
		x.ProcessorInfo.SupportedFeatures = []string{"nested-virtualization"}
	}
	if t.NetworkCards > 0 {
		x.NetworkInfo.MaximumNetworkCards = t.NetworkCards
	}
	if t.EFAInterfaces > 0 {
		x.NetworkInfo.EfaSupported, x.NetworkInfo.EfaInfo = true, &xmlEfaInfo{MaximumEfaInterfaces: t.EFAInterfaces}
	}
	if t.CPUSustainedClockMHz > 0 {
		x.ProcessorInfo.SustainedClockSpeedInGhz = strconv.FormatFloat(float64(t.CPUSustainedClockMHz)/1000, 'f', -1, 64)
	}
	if t.EBSBandwidthMbps > 0 {
		x.EbsInfo.EbsOptimizedSupport = "default"
		x.EbsInfo.EbsOptimizedInfo = &xmlEbsOptimizedInfo{BaselineBandwidthInMbps: t.EBSBandwidthMbps, MaximumBandwidthInMbps: t.EBSBandwidthMbps}
	}
	if t.EncryptionInTransit != "" {
		inTransit := t.EncryptionInTransit == "true"
		x.NetworkInfo.EncryptionInTransitSupported = &inTransit
	}
	if t.LocalNVMeGB > 0 {
		x.InstanceStorageSupported = true
		x.InstanceStorageInfo = &xmlInstanceStorageInfo{TotalSizeInGB: t.LocalNVMeGB, NvmeSupport: "required"}
	}
	switch {
	case t.AcceleratorCount > 0 && t.AcceleratorManufacturer == "AWS":
		x.NeuronInfo = &xmlNeuronInfo{NeuronDevices: []xmlNeuronDevice{{Name: t.AcceleratorName, Count: t.AcceleratorCount, CoreInfo: neuronCores[t.AcceleratorName]}}}
	case t.AcceleratorCount > 0:
		x.InferenceAcceleratorInfo = &xmlAcceleratorInfo{Accelerators: []xmlAccelerator{{Name: t.AcceleratorName, Manufacturer: t.AcceleratorManufacturer, Count: t.AcceleratorCount}}}
	}
	if t.GPUCount > 0 {
		x.GpuInfo = &xmlGpuInfo{
			Gpus:                []xmlGpu{{Name: gpuDisplayName(t.GPUName), Manufacturer: gpuManufacturer(t.GPUName), Count: t.GPUCount, MemoryInfo: xmlMemory{SizeInMiB: t.GPUMemoryMiB}}},
			TotalGpuMemoryInMiB: t.GPUCount * t.GPUMemoryMiB,
		}
	}
	return x
}

// gpuDisplayName turns the catalog's label spelling (radeon-pro-v520, a10g) back into EC2's
// (Radeon Pro V520, A10G). Lower-casing it and replacing spaces by dashes gives the label again.
func gpuDisplayName(label string) string {
	words := strings.Split(label, "-")
	for i, w := range words {
		switch w {
		case "radeon", "pro", "server":
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		case "t4g":
			words[i] = "T4g"
		default:
			words[i] = strings.ToUpper(w)
		}
	}
	if words[0] == "RTX" && len(words) > 1 {
		words[1] = "PRO"
	}
	return strings.Join(words, " ")
}

func gpuManufacturer(label string) string {
	if strings.HasPrefix(label, "radeon") {
		return "AMD"
	}
	return "NVIDIA"
}

// field serves DescribeInstanceTypes' filters.
func (t *instanceType) field(name string) ([]string, bool) {
	perf, _ := t.networkPerformance()
	switch name {
	case "instance-type":
		return one(t.Name), true
	case "current-generation":
		return one(boolString(t.CurrentGeneration)), true
	case "bare-metal":
		return one(boolString(t.bareMetal())), true
	case "burstable-performance-supported":
		return one(boolString(t.burstable())), true
	case "hypervisor":
		return one(t.Hypervisor), true
	case "free-tier-eligible":
		return one(boolString(t.Name == "t2.micro" || t.Name == "t3.micro")), true
	case "instance-storage-supported":
		return one(boolString(t.LocalNVMeGB > 0)), true
	case "processor-info.supported-architecture":
		return one(t.ec2Arch()), true
	case "processor-info.manufacturer":
		if t.CPUManufacturer == "" {
			return nil, true
		}
		return one(t.CPUManufacturer), true
	case "supported-virtualization-type":
		return one("hvm"), true
	case "supported-root-device-type":
		return one("ebs"), true
	case "supported-usage-class":
		return []string{"on-demand", "spot"}, true
	case "vcpu-info.default-vcpus":
		return one(strconv.FormatInt(t.VCPUs, 10)), true
	case "memory-info.size-in-mib":
		return one(strconv.FormatInt(t.MemoryMiB, 10)), true
	case "network-info.maximum-network-interfaces":
		return one(strconv.FormatInt(t.ENIs, 10)), true
	case "network-info.ipv4-addresses-per-interface":
		return one(strconv.FormatInt(t.IPv4PerENI, 10)), true
	case "network-info.network-performance":
		return one(perf), true
	}
	return nil, false
}

type describeInstanceTypeOfferingsResponse struct {
	ec2Response
	Offerings []xmlOffering `xml:"instanceTypeOfferingSet>item"`
	NextToken string        `xml:"nextToken,omitempty"`
}

type xmlOffering struct {
	InstanceType string `xml:"instanceType"`
	LocationType string `xml:"locationType"`
	Location     string `xml:"location"`
}

func (e *Emulator) describeInstanceTypeOfferings(q query) (any, error) {
	locType := q.str("LocationType")
	if locType == "" {
		locType = "region"
	}
	if locType != "region" && locType != "availability-zone" && locType != "availability-zone-id" {
		return nil, errInvalidParameterValue("Value (" + locType + ") for parameter locationType is invalid. Valid values: region, availability-zone, availability-zone-id")
	}
	filters := parseFilters(q)
	offeringField := func(o xmlOffering) fieldFunc {
		return func(name string) ([]string, bool) {
			switch name {
			case "instance-type":
				return one(o.InstanceType), true
			case "location":
				return one(o.Location), true
			}
			return nil, false
		}
	}
	if err := checkFilters(filters, offeringField(xmlOffering{})); err != nil {
		return nil, err
	}
	size, err := maxResults(q, 5, 1000, 1000)
	if err != nil {
		return nil, err
	}
	var all []xmlOffering
	for _, t := range e.world.types {
		if locType == "region" {
			if len(t.Zones) > 0 {
				all = append(all, xmlOffering{InstanceType: t.Name, LocationType: locType, Location: e.cfg.Region})
			}
			continue
		}
		for _, zn := range t.Zones {
			loc := zn
			if locType == "availability-zone-id" {
				z, _ := e.world.zoneByName(zn)
				loc = z.ID
			}
			all = append(all, xmlOffering{InstanceType: t.Name, LocationType: locType, Location: loc})
		}
	}
	var selected []xmlOffering
	for _, o := range all {
		if matches(filters, offeringField(o)) {
			selected = append(selected, o)
		}
	}
	start, end, next, perr := ec2Page(q, len(selected), size)
	if perr != nil {
		return nil, perr
	}
	return &describeInstanceTypeOfferingsResponse{Offerings: selected[start:end], NextToken: next}, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
