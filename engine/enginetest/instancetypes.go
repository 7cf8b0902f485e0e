package enginetest

import (
	"fmt"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Zones are the zones of DefaultInstanceTypes.
func Zones() []string { return []string{"us-east-1a", "us-east-1b", "us-east-1c"} }

// catalogRow is one instance type of the embedded catalog with its on-demand list price.
type catalogRow struct {
	info     instancetype.Info
	onDemand float64
}

func row(name, family, category string, generation int, size, arch string, vcpu, memMiB, maxPods int64, gbps, price float64,
	cpuMaker string, clockMHz, ebsMbps int64, inTransit string) catalogRow {
	return catalogRow{instancetype.Info{Name: name, Family: family, Category: category, Generation: generation, Size: size, Arch: arch,
		VCPUs: vcpu, MemoryMiB: memMiB, MaxPodsENI: maxPods, NetworkGbps: gbps, Hypervisor: "nitro",
		CPUManufacturer: cpuMaker, CPUSustainedClockMHz: clockMHz, EBSBandwidthMbps: ebsMbps, EncryptionInTransit: inTransit}, price}
}

// defaultRows are rows of the embedded catalog (us-east-1), copied so that building the default
// types needs no catalog parse.
func defaultRows() []catalogRow {
	return []catalogRow{
		row("c5.large", "c5", "c", 5, "large", "amd64", 2, 4096, 29, 0.75, 0.085, "Intel", 3400, 4750, "false"),
		row("c5.xlarge", "c5", "c", 5, "xlarge", "amd64", 4, 8192, 58, 1.25, 0.17, "Intel", 3400, 4750, "false"),
		row("c5.2xlarge", "c5", "c", 5, "2xlarge", "amd64", 8, 16384, 58, 2.5, 0.34, "Intel", 3400, 4750, "false"),
		row("m5.large", "m5", "m", 5, "large", "amd64", 2, 8192, 29, 0.75, 0.096, "Intel", 3100, 4750, "false"),
		row("m5.xlarge", "m5", "m", 5, "xlarge", "amd64", 4, 16384, 58, 1.25, 0.192, "Intel", 3100, 4750, "false"),
		row("m5.2xlarge", "m5", "m", 5, "2xlarge", "amd64", 8, 32768, 58, 2.5, 0.384, "Intel", 3100, 4750, "false"),
		row("m5.4xlarge", "m5", "m", 5, "4xlarge", "amd64", 16, 65536, 234, 5, 0.768, "Intel", 3100, 4750, "false"),
		row("r5.large", "r5", "r", 5, "large", "amd64", 2, 16384, 29, 0.75, 0.126, "Intel", 3100, 4750, "false"),
		row("r5.xlarge", "r5", "r", 5, "xlarge", "amd64", 4, 32768, 58, 1.25, 0.252, "Intel", 3100, 4750, "false"),
		row("m6g.large", "m6g", "m", 6, "large", "arm64", 2, 8192, 29, 0.75, 0.077, "AWS", 2500, 4750, "false"),
		row("m6g.xlarge", "m6g", "m", 6, "xlarge", "arm64", 4, 16384, 58, 1.25, 0.154, "AWS", 2500, 4750, "false"),
		row("c6g.xlarge", "c6g", "c", 6, "xlarge", "arm64", 4, 8192, 58, 1.25, 0.136, "AWS", 2500, 4750, "false"),
	}
}

// DefaultInstanceTypes returns twelve common types of the embedded catalog (c5, m5 and r5 on
// amd64, m6g and c6g on arm64, large to 4xlarge), each offered on-demand at its list price and
// as spot at the catalog's synthetic spot price in the three Zones, with the capacity and
// overhead the EC2 provider computes. The list is new on each call and always the same.
func DefaultInstanceTypes() []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, t := range defaultRows() {
		var offerings cloudprovider.Offerings
		for _, zone := range Zones() {
			offerings = append(offerings,
				cloudprovider.Offering{Zone: zone, CapacityType: karpv1.CapacityTypeOnDemand, Price: t.onDemand, Available: true,
					PriceSource: cloudprovider.PriceSource{Kind: cloudprovider.PriceCatalog}},
				cloudprovider.Offering{Zone: zone, CapacityType: karpv1.CapacityTypeSpot, Price: catalog.SyntheticSpotPrice(t.info.Name, zone, t.onDemand),
					Available: true, PriceSource: cloudprovider.PriceSource{Kind: cloudprovider.PriceSynthetic}})
		}
		out = append(out, instancetype.New(t.info, offerings, instancetype.Options{}))
	}
	return out
}

// CatalogInstanceTypes returns the named types of the embedded catalog (every type when none is
// named), offered in the three Zones. Parsing the catalog takes tens of milliseconds: prefer
// DefaultInstanceTypes unless a test needs the whole catalog or a type it lacks.
func CatalogInstanceTypes(names ...string) ([]*cloudprovider.InstanceType, error) {
	cat, err := catalog.Load()
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		byName := map[string]catalog.Entry{}
		for _, e := range cat.Entries {
			byName[e.Name] = e
		}
		var entries []catalog.Entry
		for _, n := range names {
			e, ok := byName[n]
			if !ok {
				return nil, fmt.Errorf("instance type %q is not in the catalog", n)
			}
			entries = append(entries, e)
		}
		cat = &catalog.Catalog{Entries: entries}
	}
	return cat.InstanceTypes(catalog.Options{Zones: Zones()}), nil
}
