package aws

import (
	"strings"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodepilot/nodepilot/aws/catalog"
)

// loadCatalog loads the embedded catalog or fails the test.
func loadCatalog(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	cat, err := catalog.Load()
	if err != nil {
		tb.Fatalf("loading the catalog: %v", err)
	}
	return cat
}

// ec2TypeInfo writes a catalog entry the way DescribeInstanceTypes describes a type: one
// network card with one ENI whose address count gives the catalog's pod limit.
func ec2TypeInfo(e catalog.Entry) ec2types.InstanceTypeInfo {
	arch := ec2types.ArchitectureTypeX8664
	if e.Arch == "arm64" {
		arch = ec2types.ArchitectureTypeArm64
	}
	info := ec2types.InstanceTypeInfo{
		InstanceType:                 ec2types.InstanceType(e.Name),
		CurrentGeneration:            sdkaws.Bool(e.CurrentGeneration),
		Hypervisor:                   ec2types.InstanceTypeHypervisor(e.Hypervisor),
		BareMetal:                    sdkaws.Bool(strings.HasPrefix(e.Size, "metal")),
		SupportedVirtualizationTypes: []ec2types.VirtualizationType{ec2types.VirtualizationTypeHvm},
		ProcessorInfo:                &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{arch}},
		VCpuInfo:                     &ec2types.VCpuInfo{DefaultVCpus: sdkaws.Int32(int32(e.VCPUs))},
		MemoryInfo:                   &ec2types.MemoryInfo{SizeInMiB: sdkaws.Int64(e.MemoryMiB)},
		NetworkInfo: &ec2types.NetworkInfo{
			MaximumNetworkInterfaces:  sdkaws.Int32(1),
			Ipv4AddressesPerInterface: sdkaws.Int32(int32(e.MaxPodsENI - 1)),
			DefaultNetworkCardIndex:   sdkaws.Int32(0),
			NetworkCards: []ec2types.NetworkCardInfo{{
				NetworkCardIndex:         sdkaws.Int32(0),
				MaximumNetworkInterfaces: sdkaws.Int32(1),
				BaselineBandwidthInGbps:  sdkaws.Float64(e.NetworkGbps),
			}},
		},
	}
	if e.NestedVirtualization {
		info.ProcessorInfo.SupportedFeatures = []ec2types.SupportedAdditionalProcessorFeature{ec2types.SupportedAdditionalProcessorFeatureNestedVirtualization}
	}
	if e.NetworkCards > 0 {
		info.NetworkInfo.MaximumNetworkCards = sdkaws.Int32(int32(e.NetworkCards))
	}
	if e.EFAInterfaces > 0 {
		info.NetworkInfo.EfaSupported = sdkaws.Bool(true)
		info.NetworkInfo.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: sdkaws.Int32(int32(e.EFAInterfaces))}
	}
	if e.CPUManufacturer != "" {
		info.ProcessorInfo.Manufacturer = sdkaws.String(e.CPUManufacturer)
	}
	if e.CPUSustainedClockMHz > 0 {
		info.ProcessorInfo.SustainedClockSpeedInGhz = sdkaws.Float64(float64(e.CPUSustainedClockMHz) / 1000)
	}
	if e.EBSBandwidthMbps > 0 {
		info.EbsInfo = &ec2types.EbsInfo{EbsOptimizedSupport: ec2types.EbsOptimizedSupportDefault,
			EbsOptimizedInfo: &ec2types.EbsOptimizedInfo{MaximumBandwidthInMbps: sdkaws.Int32(int32(e.EBSBandwidthMbps))}}
	}
	if e.EncryptionInTransit != "" {
		info.NetworkInfo.EncryptionInTransitSupported = sdkaws.Bool(e.EncryptionInTransit == "true")
	}
	if e.LocalNVMeGB > 0 {
		info.InstanceStorageInfo = &ec2types.InstanceStorageInfo{TotalSizeInGB: sdkaws.Int64(e.LocalNVMeGB), NvmeSupport: ec2types.EphemeralNvmeSupportRequired}
	}
	switch {
	case e.AcceleratorCount > 0 && e.AcceleratorManufacturer == "AWS":
		info.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{{Name: sdkaws.String(e.AcceleratorName), Count: sdkaws.Int32(int32(e.AcceleratorCount))}}}
	case e.AcceleratorCount > 0:
		info.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{Accelerators: []ec2types.InferenceDeviceInfo{{
			Name: sdkaws.String(e.AcceleratorName), Manufacturer: sdkaws.String(e.AcceleratorManufacturer), Count: sdkaws.Int32(int32(e.AcceleratorCount))}}}
	}
	if e.GPUName != "" { // fractional GPUs have a name and a count of 0
		info.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
			Count:      sdkaws.Int32(int32(e.GPUCount)),
			Name:       sdkaws.String(strings.ReplaceAll(e.GPUName, "-", " ")),
			MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: sdkaws.Int32(int32(e.GPUMemoryMiB))},
		}}}
	}
	return info
}

// catalogPages is the catalog as DescribeInstanceTypes pages of 100 types.
func catalogPages(cat *catalog.Catalog) [][]ec2types.InstanceTypeInfo {
	var pages [][]ec2types.InstanceTypeInfo
	var page []ec2types.InstanceTypeInfo
	for _, e := range cat.Entries {
		page = append(page, ec2TypeInfo(e))
		if len(page) == 100 {
			pages = append(pages, page)
			page = nil
		}
	}
	if len(page) > 0 {
		pages = append(pages, page)
	}
	return pages
}
