package instancetype

import (
	"math"
	"strconv"
	"strings"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// Info is what EC2 tells about an instance type, whichever way it was read.
type Info struct {
	Name       string
	Family     string
	Category   string
	Generation int
	Size       string
	// Arch uses Kubernetes' spelling: amd64 or arm64.
	Arch         string
	VCPUs        int64
	MemoryMiB    int64
	GPUCount     int64
	GPUName      string
	GPUMemoryMiB int64 // per GPU
	// MaxPodsENI is ENIs x (IPv4 addresses per ENI - 1) + 2.
	MaxPodsENI int64
	// NetworkGbps is the baseline bandwidth.
	NetworkGbps float64
	// Hypervisor is "nitro" or "" for bare metal.
	Hypervisor string
	// CPUManufacturer is EC2's spelling (AMD, Intel, AWS, Apple); "" when unknown.
	CPUManufacturer string
	// CPUSustainedClockMHz, EBSBandwidthMbps (maximum, EBS-optimized by default) and LocalNVMeGB
	// (instance store on NVMe) are 0 when unknown or absent.
	CPUSustainedClockMHz, EBSBandwidthMbps, LocalNVMeGB int64
	// EncryptionInTransit is "true", "false" or "" when unknown.
	EncryptionInTransit string
	// Accelerator is the type's one inference accelerator or Neuron device, if it has one.
	AcceleratorName, AcceleratorManufacturer string
	AcceleratorCount                         int64
	// NestedVirtualization is set when the processor supports it; NetworkCards and
	// EFAInterfaces count the network cards and the EFA interfaces it takes (0 when unknown).
	NestedVirtualization        bool
	NetworkCards, EFAInterfaces int64
}

// Kubelet holds the EC2NodeClass kubelet settings that change capacity and overhead.
// Zero values mean Karpenter's defaults.
type Kubelet struct {
	MaxPods        *int32
	PodsPerCore    *int32
	KubeReserved   map[string]string
	SystemReserved map[string]string
	EvictionHard   map[string]string
	EvictionSoft   map[string]string
}

// Options are the node class facts that shape every instance type.
type Options struct {
	Kubelet Kubelet
	// RootVolume is the size of the volume that backs ephemeral storage (default 20Gi).
	RootVolume *resource.Quantity
	// VMMemoryOverheadPercent is the share of memory the hypervisor keeps (default 0.075).
	VMMemoryOverheadPercent float64
}

const (
	defaultVMMemoryOverhead = 0.075
	// gravitonCMAMiB is memory Graviton kernels reserve for the contiguous memory allocator.
	gravitonCMAMiB = 64
)

// New builds the engine's instance type from EC2's facts and the offerings it can be bought with.
func New(info Info, offerings cloudprovider.Offerings, opts Options) *cloudprovider.InstanceType {
	capacity := Capacity(info, opts)
	return &cloudprovider.InstanceType{
		Name:         info.Name,
		Requirements: Requirements(info, offerings),
		Offerings:    offerings,
		Capacity:     capacity,
		Overhead: cloudprovider.Overhead{
			KubeReserved:      kubeReserved(capacity, opts.Kubelet.KubeReserved),
			SystemReserved:    parseResources(opts.Kubelet.SystemReserved),
			EvictionThreshold: evictionThreshold(capacity, opts.Kubelet),
		},
	}
}

// Requirements returns the well-known labels of the type as single-valued requirements, plus the
// zones and capacity types of its offerings.
func Requirements(info Info, offerings cloudprovider.Offerings) requirements.Requirements {
	labels := Labels(info)
	reqs := requirements.FromLabels(labels)
	var zones, cts []string
	for _, o := range offerings {
		zones = append(zones, o.Zone)
		cts = append(cts, o.CapacityType)
	}
	add := []*requirements.Requirement{
		requirements.New(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
		requirements.New(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, cts...),
	}
	// Labels a type lacks are explicitly absent, so that "has a GPU" rules out the types without.
	for _, key := range optionalLabels() {
		if _, ok := labels[key]; !ok {
			add = append(add, requirements.New(key, corev1.NodeSelectorOpDoesNotExist))
		}
	}
	// Either tenancy can be launched, as Karpenter offers them; the launch picks default unless
	// only dedicated is allowed.
	add = append(add, requirements.New(awsv1.LabelInstanceTenancy, corev1.NodeSelectorOpIn, TenancyDefault, TenancyDedicated))
	return reqs.Add(add...)
}

// Tenancies of an instance, as EC2 spells them.
const (
	TenancyDefault   = "default"
	TenancyDedicated = "dedicated"
)

// optionalLabels are the well-known labels only some types carry.
func optionalLabels() []string {
	return []string{awsv1.LabelInstanceGPUCount, awsv1.LabelInstanceGPUName, awsv1.LabelInstanceGPUManufacturer,
		awsv1.LabelInstanceGPUMemory, awsv1.LabelInstanceHypervisor, awsv1.LabelInstanceCPUManufacturer,
		awsv1.LabelInstanceCPUSustainedClockSpeedMhz, awsv1.LabelInstanceEBSBandwidth, awsv1.LabelInstanceEncryptionInTransitSupported,
		awsv1.LabelInstanceLocalNVME, awsv1.LabelInstanceAcceleratorName, awsv1.LabelInstanceAcceleratorManufacturer,
		awsv1.LabelInstanceAcceleratorCount}
}

// Labels are the labels a node of this type carries, as Karpenter sets them.
func Labels(info Info) map[string]string {
	labels := map[string]string{
		corev1.LabelArchStable:              info.Arch,
		corev1.LabelOSStable:                string(corev1.Linux),
		corev1.LabelInstanceTypeStable:      info.Name,
		awsv1.LabelInstanceCategory:         info.Category,
		awsv1.LabelInstanceFamily:           info.Family,
		awsv1.LabelInstanceGeneration:       strconv.Itoa(info.Generation),
		awsv1.LabelInstanceSize:             info.Size,
		awsv1.LabelInstanceCPU:              strconv.FormatInt(info.VCPUs, 10),
		awsv1.LabelInstanceMemory:           strconv.FormatInt(info.MemoryMiB, 10),
		awsv1.LabelInstanceNetworkBandwidth: strconv.FormatInt(int64(math.Round(info.NetworkGbps*1000)), 10),
	}
	if info.Hypervisor != "" {
		labels[awsv1.LabelInstanceHypervisor] = info.Hypervisor
	}
	labels[awsv1.LabelInstanceCapabilityFlex] = strconv.FormatBool(strings.Contains(info.Family, "-flex"))
	set := func(key, value string) {
		if value != "" && value != "0" {
			labels[key] = value
		}
	}
	set(awsv1.LabelInstanceCPUManufacturer, kebab(info.CPUManufacturer))
	set(awsv1.LabelInstanceCPUSustainedClockSpeedMhz, strconv.FormatInt(info.CPUSustainedClockMHz, 10))
	set(awsv1.LabelInstanceEBSBandwidth, strconv.FormatInt(info.EBSBandwidthMbps, 10))
	set(awsv1.LabelInstanceEncryptionInTransitSupported, info.EncryptionInTransit)
	set(awsv1.LabelInstanceLocalNVME, strconv.FormatInt(info.LocalNVMeGB, 10))
	if info.AcceleratorCount > 0 {
		set(awsv1.LabelInstanceAcceleratorName, kebab(info.AcceleratorName))
		set(awsv1.LabelInstanceAcceleratorManufacturer, kebab(info.AcceleratorManufacturer))
		set(awsv1.LabelInstanceAcceleratorCount, strconv.FormatInt(info.AcceleratorCount, 10))
	}
	if info.GPUCount > 0 {
		labels[awsv1.LabelInstanceGPUCount] = strconv.FormatInt(info.GPUCount, 10)
		labels[awsv1.LabelInstanceGPUName] = strings.ToLower(info.GPUName)
		labels[awsv1.LabelInstanceGPUMemory] = strconv.FormatInt(info.GPUMemoryMiB, 10)
		labels[awsv1.LabelInstanceGPUManufacturer] = gpuManufacturer(info.GPUName)
	}
	return labels
}

// kebab is a name as Karpenter writes it in a label: lower case, spaces as dashes.
func kebab(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "-") }

// GPU resource names by manufacturer.
const (
	ResourceNvidiaGPU corev1.ResourceName = "nvidia.com/gpu"
	ResourceAMDGPU    corev1.ResourceName = "amd.com/gpu"
)

func gpuManufacturer(name string) string {
	if strings.HasPrefix(strings.ToLower(name), "radeon") {
		return "amd"
	}
	return "nvidia"
}

// Capacity is what the kubelet reports: vCPUs, memory after the hypervisor's share, the pod
// limit, ephemeral storage and GPUs.
func Capacity(info Info, opts Options) corev1.ResourceList {
	out := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(info.VCPUs, resource.DecimalSI),
		corev1.ResourceMemory:           memory(info, opts),
		corev1.ResourcePods:             *resource.NewQuantity(pods(info, opts.Kubelet), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: rootVolume(opts),
	}
	if info.GPUCount > 0 {
		name := ResourceNvidiaGPU
		if gpuManufacturer(info.GPUName) == "amd" {
			name = ResourceAMDGPU
		}
		out[name] = *resource.NewQuantity(info.GPUCount, resource.DecimalSI)
	}
	return out
}

func memory(info Info, opts Options) resource.Quantity {
	mib := info.MemoryMiB
	if info.Arch == "arm64" {
		mib -= gravitonCMAMiB
	}
	pct := opts.VMMemoryOverheadPercent
	if pct == 0 {
		pct = defaultVMMemoryOverhead
	}
	mib -= int64(math.Ceil(float64(mib) * pct))
	return *resource.NewQuantity(mib*1024*1024, resource.BinarySI)
}

func pods(info Info, k Kubelet) int64 {
	n := info.MaxPodsENI
	if k.MaxPods != nil {
		n = int64(*k.MaxPods)
	}
	if k.PodsPerCore != nil && *k.PodsPerCore > 0 {
		n = min(n, int64(*k.PodsPerCore)*info.VCPUs)
	}
	return n
}

func rootVolume(opts Options) resource.Quantity {
	if opts.RootVolume != nil {
		return opts.RootVolume.DeepCopy()
	}
	return resource.MustParse("20Gi")
}

func kubeReserved(capacity corev1.ResourceList, override map[string]string) corev1.ResourceList {
	podCount := capacity.Pods().Value()
	cpu := capacity.Cpu().MilliValue()
	// The kubelet keeps a share of each range of cores, in millicores.
	cpuReserved := [...]struct {
		from, to int64
		share    float64
	}{{0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, math.MaxInt64, 0.0025}}
	var reservedMilli int64
	for _, r := range cpuReserved {
		if cpu <= r.from {
			break
		}
		span := min(cpu, r.to) - r.from
		reservedMilli += int64(math.Ceil(float64(span) * r.share))
	}
	out := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(reservedMilli, resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity((11*podCount+255)*1024*1024, resource.BinarySI),
		corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
	}
	for name, q := range parseResources(override) {
		out[name] = q
	}
	return out
}

// evictionThreshold defaults to memory.available 100Mi and nodefs.available 10%; a signal set in
// the kubelet's evictionHard or evictionSoft replaces its default with the larger of the two.
// Percentages are taken of capacity.
func evictionThreshold(capacity corev1.ResourceList, k Kubelet) corev1.ResourceList {
	out := corev1.ResourceList{
		corev1.ResourceMemory:           resource.MustParse("100Mi"),
		corev1.ResourceEphemeralStorage: percentOf(capacity[corev1.ResourceEphemeralStorage], 10),
	}
	signals := map[string]corev1.ResourceName{
		"memory.available": corev1.ResourceMemory,
		"nodefs.available": corev1.ResourceEphemeralStorage,
	}
	overrides := corev1.ResourceList{}
	for _, set := range []map[string]string{k.EvictionHard, k.EvictionSoft} {
		for signal, value := range set {
			name, ok := signals[signal]
			if !ok {
				continue
			}
			q, ok := evictionValue(capacity[name], value)
			if prev, seen := overrides[name]; ok && (!seen || q.Cmp(prev) > 0) {
				overrides[name] = q
			}
		}
	}
	for name, q := range overrides {
		out[name] = q
	}
	return out
}

// evictionValue reads a threshold: a quantity, or a percentage of capacity.
func evictionValue(capacity resource.Quantity, value string) (resource.Quantity, bool) {
	if p, isPct := strings.CutSuffix(value, "%"); isPct {
		f, err := strconv.ParseFloat(p, 64)
		return percentOf(capacity, f), err == nil
	}
	q, err := resource.ParseQuantity(value)
	return q, err == nil
}

func percentOf(q resource.Quantity, pct float64) resource.Quantity {
	return *resource.NewQuantity(int64(math.Ceil(float64(q.Value())*pct/100)), resource.BinarySI)
}

// parseResources reads kubelet reservation maps; the API validation rejects bad values first.
func parseResources(m map[string]string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range m {
		if q, err := resource.ParseQuantity(v); err == nil {
			out[corev1.ResourceName(k)] = q
		}
	}
	return out
}
