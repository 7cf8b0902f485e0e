package catalog

import (
	"bytes"
	"embed"
	"encoding/csv"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

//go:embed data/instance-types-us-east-1.csv data/instance-type-offerings-us-east-1.csv data/PROVENANCE.md
var data embed.FS

// Region is the region the embedded catalog describes.
const Region = "us-east-1"

// defaultZones are given to the types the offerings data lists no zone for (see PROVENANCE.md):
// the three zones nearly every type is offered in.
func defaultZones() []string { return []string{"us-east-1a", "us-east-1b", "us-east-1c"} }

// Entry is one row of the catalog.
type Entry struct {
	instancetype.Info
	// OnDemandPrice is the Linux on-demand list price in US dollars per hour.
	OnDemandPrice     float64
	CurrentGeneration bool
	// Zones are the zones the type is offered in.
	Zones []string
	// ZonesSynthetic is true when the source data listed no zone and three default zones were assumed.
	ZonesSynthetic bool
}

// Catalog is the parsed catalog, in the order of the data file.
type Catalog struct {
	Entries []Entry
}

// Load parses the embedded data. It fails only if the embedded files are corrupt.
func Load() (*Catalog, error) {
	types, err := data.ReadFile("data/instance-types-us-east-1.csv")
	if err != nil {
		return nil, err
	}
	offerings, err := data.ReadFile("data/instance-type-offerings-us-east-1.csv")
	if err != nil {
		return nil, err
	}
	zones, err := parseZones(offerings)
	if err != nil {
		return nil, fmt.Errorf("instance-type-offerings-us-east-1.csv: %w", err)
	}
	entries, err := parseTypes(types, zones)
	if err != nil {
		return nil, fmt.Errorf("instance-types-us-east-1.csv: %w", err)
	}
	return &Catalog{Entries: entries}, nil
}

// Provenance returns the text that says where the data comes from.
func Provenance() string {
	b, _ := data.ReadFile("data/PROVENANCE.md")
	return string(b)
}

// Zones lists every zone some type is offered in, sorted.
func (c *Catalog) Zones() []string {
	seen := map[string]bool{}
	for _, e := range c.Entries {
		for _, z := range e.Zones {
			seen[z] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Options shape the instance types built from the catalog.
type Options struct {
	instancetype.Options
	// Zones, when set, limits the offerings to these zones.
	Zones []string
	// Needs leave out the types the node class's settings cannot launch.
	Needs instancetype.Needs
}

// InstanceTypes builds the engine's instance types: an on-demand offering at the list price and a
// spot offering at the synthetic spot price in every zone of each type.
func (c *Catalog) InstanceTypes(opts Options) []*cloudprovider.InstanceType {
	out := make([]*cloudprovider.InstanceType, 0, len(c.Entries))
	for _, e := range c.Entries {
		if !opts.Needs.Met(e.Info) {
			continue
		}
		var offerings cloudprovider.Offerings
		for _, zone := range e.Zones {
			if len(opts.Zones) > 0 && !contains(opts.Zones, zone) {
				continue
			}
			offerings = append(offerings,
				cloudprovider.Offering{Zone: zone, CapacityType: karpv1.CapacityTypeOnDemand, Price: e.OnDemandPrice,
					Available: true, PriceSource: cloudprovider.PriceSource{Kind: cloudprovider.PriceCatalog}},
				cloudprovider.Offering{Zone: zone, CapacityType: karpv1.CapacityTypeSpot, Price: SyntheticSpotPrice(e.Name, zone, e.OnDemandPrice),
					Available: true, PriceSource: cloudprovider.PriceSource{Kind: cloudprovider.PriceSynthetic}},
			)
		}
		if len(offerings) == 0 {
			continue
		}
		out = append(out, instancetype.New(e.Info, offerings, opts.Options))
	}
	return out
}

// SyntheticSpotPrice is a stand-in spot price, fixed per type and zone so that plans are
// reproducible, and never shown without a "synthetic" label. It follows how spot prices behave:
// a discount per instance family (45% to 75% off on-demand), a zone's supply moving it by up to
// 10%, and sizes of a family priced nearly in proportion (2% jitter).
func SyntheticSpotPrice(instanceType, zone string, onDemand float64) float64 {
	family, _, _ := strings.Cut(instanceType, ".")
	discount := 0.45 + 0.30*unitHash(family)
	zoneFactor := 1 + 0.10*(2*unitHash(family, zone)-1)
	jitter := 1 + 0.02*(2*unitHash(instanceType, zone)-1)
	return roundPrice(onDemand * (1 - discount) * zoneFactor * jitter)
}

// unitHash maps its inputs to [0, 1) deterministically.
func unitHash(parts ...string) float64 {
	h := fnv.New32a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return float64(h.Sum32()%100000) / 100000
}

func roundPrice(p float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(p, 'f', 6, 64), 64)
	return v
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func parseZones(b []byte) (map[string][]string, error) {
	rows, err := readCSV(b, []string{"name", "zones"})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, row := range rows {
		if row[1] != "" {
			out[row[0]] = strings.Split(row[1], ";")
		}
	}
	return out, nil
}

func typeColumns() []string {
	return []string{"name", "family", "category", "generation", "size", "arch", "vcpu", "memory_mib",
		"gpu_count", "gpu_name", "gpu_memory_mib", "max_pods_eni", "network_gbps", "ondemand_usd_per_hour", "current_generation",
		"cpu_manufacturer", "cpu_sustained_clock_mhz", "ebs_bandwidth_mbps", "encryption_in_transit", "local_nvme_gb",
		"accelerator_name", "accelerator_manufacturer", "accelerator_count", "nested_virtualization", "network_cards", "efa_max_interfaces"}
}

func parseTypes(b []byte, zones map[string][]string) ([]Entry, error) {
	rows, err := readCSV(b, typeColumns())
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(rows))
	for i, row := range rows {
		p := fieldParser{row: row, line: i + 2}
		e := Entry{
			Info: instancetype.Info{
				Name:         row[0],
				Family:       row[1],
				Category:     row[2],
				Generation:   int(p.int(3)),
				Size:         row[4],
				Arch:         row[5],
				VCPUs:        p.int(6),
				MemoryMiB:    p.int(7),
				GPUCount:     p.intOrZero(8),
				GPUName:      row[9],
				GPUMemoryMiB: p.intOrZero(10),
				MaxPodsENI:   p.int(11),
				NetworkGbps:  p.float(12),
				Hypervisor:   hypervisor(row[4]),

				CPUManufacturer:         row[15],
				CPUSustainedClockMHz:    p.intOrZero(16),
				EBSBandwidthMbps:        p.intOrZero(17),
				EncryptionInTransit:     row[18],
				LocalNVMeGB:             p.intOrZero(19),
				AcceleratorName:         row[20],
				AcceleratorManufacturer: row[21],
				AcceleratorCount:        p.intOrZero(22),
				NestedVirtualization:    row[23] == "true",
				NetworkCards:            p.intOrZero(24),
				EFAInterfaces:           p.intOrZero(25),
			},
			OnDemandPrice:     p.float(13),
			CurrentGeneration: row[14] == "true",
			Zones:             zones[row[0]],
		}
		if p.err != nil {
			return nil, p.err
		}
		if len(e.Zones) == 0 {
			e.Zones, e.ZonesSynthetic = defaultZones(), true
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// hypervisor: the catalog keeps only Nitro families (PROVENANCE.md); bare metal has none.
func hypervisor(size string) string {
	if strings.HasPrefix(size, "metal") {
		return ""
	}
	return "nitro"
}

func readCSV(b []byte, columns []string) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(b))
	header, err := r.Read()
	if err != nil {
		return nil, err
	}
	if strings.Join(header, ",") != strings.Join(columns, ",") {
		return nil, fmt.Errorf("header %v, want %v", header, columns)
	}
	var rows [][]string
	for {
		row, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
}

// fieldParser reads numeric columns, keeping the first error with its line and column.
type fieldParser struct {
	row  []string
	line int
	err  error
}

func (p *fieldParser) int(i int) int64 {
	v, err := strconv.ParseInt(p.row[i], 10, 64)
	p.fail(i, err)
	return v
}

func (p *fieldParser) intOrZero(i int) int64 {
	if p.row[i] == "" {
		return 0
	}
	return p.int(i)
}

func (p *fieldParser) float(i int) float64 {
	v, err := strconv.ParseFloat(p.row[i], 64)
	p.fail(i, err)
	return v
}

func (p *fieldParser) fail(i int, err error) {
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("line %d, column %s: %w", p.line, typeColumns()[i], err)
	}
}
