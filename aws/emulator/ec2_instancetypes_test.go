package emulator

import (
	"cmp"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/nodepilot/nodepilot/aws/catalog"
)

func loadCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// apiCode returns the AWS error code of err, or "".
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// failedAs checks a call's error against the API error code a case expects ("" for none): any
// other outcome fails the test. It reports whether the call failed as expected, when the case
// has nothing more to check.
func failedAs(t *testing.T, err error, code string) bool {
	t.Helper()
	if apiCode(err) != code || (code == "" && err != nil) {
		t.Fatalf("error %v, want %s", err, cmp.Or(code, "none"))
	}
	return code != ""
}

// karpenterTypeFilters are the filters Karpenter lists instance types with.
func karpenterTypeFilters() []types.Filter {
	return []types.Filter{
		{Name: aws.String("supported-virtualization-type"), Values: []string{"hvm"}},
		{Name: aws.String("processor-info.supported-architecture"), Values: []string{"x86_64", "arm64"}},
	}
}

func TestDescribeInstanceTypesPagesEveryCatalogType(t *testing.T) {
	_, _, c := startFake(t, Config{})
	cat := loadCatalog(t)
	byName := map[string]catalog.Entry{}
	for _, e := range cat.Entries {
		byName[e.Name] = e
	}
	p := ec2.NewDescribeInstanceTypesPaginator(c.ec2, &ec2.DescribeInstanceTypesInput{Filters: karpenterTypeFilters()})
	seen := map[string]types.InstanceTypeInfo{}
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		if len(out.InstanceTypes) > 100 {
			t.Fatalf("page %d has %d types, want at most 100", pages, len(out.InstanceTypes))
		}
		for _, it := range out.InstanceTypes {
			if _, dup := seen[string(it.InstanceType)]; dup {
				t.Fatalf("%s on two pages", it.InstanceType)
			}
			seen[string(it.InstanceType)] = it
		}
	}
	if len(seen) != len(cat.Entries) || len(cat.Entries) != 1271 {
		t.Fatalf("got %d types over %d pages, want the catalog's %d (1271)", len(seen), pages, len(cat.Entries))
	}
	if pages != 13 {
		t.Errorf("pages = %d, want 13 of at most 100", pages)
	}
	for name, it := range seen {
		e := byName[name]
		enis, ips := *it.NetworkInfo.MaximumNetworkInterfaces, *it.NetworkInfo.Ipv4AddressesPerInterface
		if got := int64(enis)*(int64(ips)-1) + 2; got != e.MaxPodsENI {
			t.Errorf("%s: ENIs %d x (IPs %d - 1) + 2 = %d, want the catalog's max pods %d", name, enis, ips, got, e.MaxPodsENI)
		}
		if *it.VCpuInfo.DefaultVCpus != int32(e.VCPUs) || *it.MemoryInfo.SizeInMiB != e.MemoryMiB {
			t.Errorf("%s: %d vCPU %d MiB, want %d and %d", name, *it.VCpuInfo.DefaultVCpus, *it.MemoryInfo.SizeInMiB, e.VCPUs, e.MemoryMiB)
		}
		wantArch := types.ArchitectureTypeX8664
		if e.Arch == "arm64" {
			wantArch = types.ArchitectureTypeArm64
		}
		if len(it.ProcessorInfo.SupportedArchitectures) != 1 || it.ProcessorInfo.SupportedArchitectures[0] != wantArch {
			t.Errorf("%s: architectures %v, want %s", name, it.ProcessorInfo.SupportedArchitectures, wantArch)
		}
		if got := *it.NetworkInfo.NetworkCards[0].BaselineBandwidthInGbps; got != e.NetworkGbps {
			t.Errorf("%s: baseline bandwidth %v, want %v", name, got, e.NetworkGbps)
		}
		if (e.GPUCount > 0) != (it.GpuInfo != nil) {
			t.Errorf("%s: GPU info %v for %d GPUs", name, it.GpuInfo, e.GPUCount)
		}
		if it.GpuInfo != nil {
			g := it.GpuInfo.Gpus[0]
			label := strings.ToLower(strings.ReplaceAll(*g.Name, " ", "-"))
			if label != e.GPUName || int64(*g.Count) != e.GPUCount || int64(*g.MemoryInfo.SizeInMiB) != e.GPUMemoryMiB {
				t.Errorf("%s: GPU %s (label %s) x%d %d MiB, want %s x%d %d MiB", name, *g.Name, label, *g.Count, *g.MemoryInfo.SizeInMiB, e.GPUName, e.GPUCount, e.GPUMemoryMiB)
			}
		}
		// Karpenter counts NeuronCores as devices x cores per device, and dereferences both.
		if n := it.NeuronInfo; n != nil {
			if d := n.NeuronDevices[0]; d.CoreInfo == nil || d.CoreInfo.Count == nil || *d.CoreInfo.Count == 0 || d.Count == nil {
				t.Errorf("%s: neuron device %+v, want its count and cores per device", name, d)
			}
		}
		if string(it.Hypervisor) != e.Hypervisor || *it.BareMetal != strings.HasPrefix(e.Size, "metal") {
			t.Errorf("%s: hypervisor %q bare metal %v, want %q", name, it.Hypervisor, *it.BareMetal, e.Hypervisor)
		}
		if len(it.SupportedUsageClasses) != 2 || *it.CurrentGeneration != e.CurrentGeneration {
			t.Errorf("%s: usage classes %v current generation %v", name, it.SupportedUsageClasses, *it.CurrentGeneration)
		}
	}
	g5 := seen["g5.xlarge"]
	if g := g5.GpuInfo.Gpus[0]; *g.Name != "A10G" || *g.Manufacturer != "NVIDIA" {
		t.Errorf("g5.xlarge GPU %s by %s, want A10G by NVIDIA", *g.Name, *g.Manufacturer)
	}
	if m := seen["m5.large"].NetworkInfo; *m.NetworkPerformance != "Up to 10 Gigabit" || *m.MaximumNetworkInterfaces != 3 || *m.Ipv4AddressesPerInterface != 10 {
		t.Errorf("m5.large network %s, %d ENIs x %d, want Up to 10 Gigabit, 3 x 10", *m.NetworkPerformance, *m.MaximumNetworkInterfaces, *m.Ipv4AddressesPerInterface)
	}
}

func TestDescribeInstanceTypesFilters(t *testing.T) {
	_, _, c := startFake(t, Config{})
	cat := loadCatalog(t)
	count := func(pred func(catalog.Entry) bool) int {
		n := 0
		for _, e := range cat.Entries {
			if pred(e) {
				n++
			}
		}
		return n
	}
	tests := []struct {
		name    string
		filters []types.Filter
		types   []types.InstanceType
		want    int
	}{
		{"arm64", []types.Filter{{Name: aws.String("processor-info.supported-architecture"), Values: []string{"arm64"}}}, nil,
			count(func(e catalog.Entry) bool { return e.Arch == "arm64" })},
		{"wildcard family", []types.Filter{{Name: aws.String("instance-type"), Values: []string{"m5.*"}}}, nil,
			count(func(e catalog.Entry) bool { return e.Family == "m5" })},
		{"bare metal", []types.Filter{{Name: aws.String("bare-metal"), Values: []string{"true"}}}, nil,
			count(func(e catalog.Entry) bool { return strings.HasPrefix(e.Size, "metal") })},
		{"previous generation", []types.Filter{{Name: aws.String("current-generation"), Values: []string{"false"}}}, nil,
			count(func(e catalog.Entry) bool { return !e.CurrentGeneration })},
		{"two vcpus and x86", []types.Filter{
			{Name: aws.String("vcpu-info.default-vcpus"), Values: []string{"2"}},
			{Name: aws.String("processor-info.supported-architecture"), Values: []string{"x86_64"}}}, nil,
			count(func(e catalog.Entry) bool { return e.VCPUs == 2 && e.Arch == "amd64" })},
		{"named types", nil, []types.InstanceType{"m5.large", "c6g.xlarge"}, 2},
		{"named and filtered out", []types.Filter{{Name: aws.String("processor-info.supported-architecture"), Values: []string{"arm64"}}},
			[]types.InstanceType{"m5.large", "c6g.xlarge"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ec2.NewDescribeInstanceTypesPaginator(c.ec2, &ec2.DescribeInstanceTypesInput{Filters: tt.filters, InstanceTypes: tt.types})
			got := 0
			for p.HasMorePages() {
				out, err := p.NextPage(ctx(t))
				if err != nil {
					t.Fatal(err)
				}
				got += len(out.InstanceTypes)
			}
			if got != tt.want || got == 0 {
				t.Errorf("got %d types, want %d (and more than 0)", got, tt.want)
			}
		})
	}
}

func TestDescribeInstanceTypesErrors(t *testing.T) {
	_, _, c := startFake(t, Config{})
	tests := []struct {
		name string
		in   *ec2.DescribeInstanceTypesInput
		code string
	}{
		{"unknown filter", &ec2.DescribeInstanceTypesInput{Filters: []types.Filter{{Name: aws.String("colour"), Values: []string{"red"}}}}, "InvalidParameterValue"},
		{"unknown type", &ec2.DescribeInstanceTypesInput{InstanceTypes: []types.InstanceType{"m5.large", "z9.huge"}}, "InvalidInstanceType"},
		{"page too large", &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(101)}, "InvalidParameterValue"},
		{"page too small", &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(4)}, "InvalidParameterValue"},
		{"forged token", &ec2.DescribeInstanceTypesInput{NextToken: aws.String("not-a-token")}, "InvalidPaginationToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.ec2.DescribeInstanceTypes(ctx(t), tt.in)
			if got := apiCode(err); got != tt.code {
				t.Errorf("error %v, want code %s", err, tt.code)
			}
		})
	}
	// A token issued for other parameters is refused as well.
	out, err := c.ec2.DescribeInstanceTypes(ctx(t), &ec2.DescribeInstanceTypesInput{})
	if err != nil || out.NextToken == nil {
		t.Fatalf("first page: %v, token %v", err, out.NextToken)
	}
	_, err = c.ec2.DescribeInstanceTypes(ctx(t), &ec2.DescribeInstanceTypesInput{NextToken: out.NextToken, Filters: karpenterTypeFilters()})
	if apiCode(err) != "InvalidPaginationToken" {
		t.Errorf("token reused with other filters: %v, want InvalidPaginationToken", err)
	}
}

func TestDescribeInstanceTypeOfferings(t *testing.T) {
	e, _, c := startFake(t, Config{Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"}})
	cat := loadCatalog(t)
	want := map[string]int{}
	total := 0
	for _, en := range cat.Entries {
		for _, z := range en.Zones {
			if contains([]string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"}, z) {
				want[z]++
				total++
			}
		}
	}
	tests := []struct {
		name     string
		in       *ec2.DescribeInstanceTypeOfferingsInput
		want     int
		location func(string) bool
	}{
		{"every zone", &ec2.DescribeInstanceTypeOfferingsInput{LocationType: types.LocationTypeAvailabilityZone}, total,
			func(l string) bool { return strings.HasPrefix(l, "us-east-1") }},
		{"one zone", &ec2.DescribeInstanceTypeOfferingsInput{LocationType: types.LocationTypeAvailabilityZone,
			Filters: []types.Filter{{Name: aws.String("location"), Values: []string{"us-east-1d"}}}}, want["us-east-1d"],
			func(l string) bool { return l == "us-east-1d" }},
		{"zone ids", &ec2.DescribeInstanceTypeOfferingsInput{LocationType: types.LocationTypeAvailabilityZoneId,
			Filters: []types.Filter{{Name: aws.String("instance-type"), Values: []string{"m5.large"}}}}, 4,
			func(l string) bool { return strings.HasPrefix(l, "use1-az") }},
		{"region", &ec2.DescribeInstanceTypeOfferingsInput{}, len(cat.Entries),
			func(l string) bool { return l == "us-east-1" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ec2.NewDescribeInstanceTypeOfferingsPaginator(c.ec2, tt.in)
			got := 0
			for p.HasMorePages() {
				out, err := p.NextPage(ctx(t))
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range out.InstanceTypeOfferings {
					if !tt.location(*o.Location) {
						t.Fatalf("offering %s in %s", o.InstanceType, *o.Location)
					}
				}
				got += len(out.InstanceTypeOfferings)
			}
			if got != tt.want || got == 0 {
				t.Errorf("got %d offerings, want %d", got, tt.want)
			}
		})
	}
	if _, err := c.ec2.DescribeInstanceTypeOfferings(ctx(t), &ec2.DescribeInstanceTypeOfferingsInput{LocationType: "planet"}); apiCode(err) != "InvalidParameterValue" {
		t.Errorf("bad location type: %v", err)
	}
	_ = e
}

func TestInterfacesFactorPodLimits(t *testing.T) {
	tests := []struct {
		maxPods, enis, ips int64
	}{
		{29, 3, 10}, {58, 4, 15}, {234, 8, 30}, {737, 15, 50}, {4, 2, 2}, {11, 3, 4}, {17, 3, 6}, {35, 3, 12}, {8, 2, 4},
	}
	for _, tt := range tests {
		if e, i := interfaces(tt.maxPods); e != tt.enis || i != tt.ips {
			t.Errorf("interfaces(%d) = %d, %d; want %d, %d", tt.maxPods, e, i, tt.enis, tt.ips)
		}
	}
}
