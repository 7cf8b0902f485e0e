package aws

import (
	"testing"

	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	v1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// TestInfoFromEC2MatchesCatalog converts every catalog type as DescribeInstanceTypes would
// describe it and expects the catalog's facts back, including the name-derived labels (family,
// category, generation, size) that only the conversion computes.
func TestInfoFromEC2MatchesCatalog(t *testing.T) {
	cat := loadCatalog(t)
	infos := infosFromPages(catalogPages(cat))
	if len(infos) != len(cat.Entries) {
		t.Fatalf("converted %d types, want %d", len(infos), len(cat.Entries))
	}
	byName := map[string]instancetype.Info{}
	for _, info := range infos {
		byName[info.Name] = info
	}
	for _, e := range cat.Entries {
		got, ok := byName[e.Name]
		if !ok {
			t.Errorf("%s: not converted", e.Name)
			continue
		}
		if got != e.Info {
			t.Errorf("%s:\n got %+v\nwant %+v", e.Name, got, e.Info)
		}
	}
}

func TestInstanceTypeNames(t *testing.T) {
	tests := []struct {
		name, category, size string
		generation           int
	}{
		{"m5.large", "m", "large", 5},
		{"m7i-flex.2xlarge", "m", "2xlarge", 7},
		{"u-6tb1.56xlarge", "u", "56xlarge", 1},
		{"u7in-16tb.224xlarge", "u", "224xlarge", 7},
		{"mac2-m2pro.metal", "mac", "metal", 2},
		{"hpc7g.4xlarge", "hpc", "4xlarge", 7},
	}
	for _, tt := range tests {
		m := instanceTypeName.FindStringSubmatch(tt.name)
		if m == nil {
			t.Errorf("%s: no match", tt.name)
			continue
		}
		if m[1] != tt.category || m[3] != tt.size || m[2] != string(rune('0'+tt.generation)) {
			t.Errorf("%s: category %q generation %q size %q, want %q %d %q", tt.name, m[1], m[2], m[3], tt.category, tt.generation, tt.size)
		}
	}
}

// TestBuildInstanceTypesOfferings checks the offerings of one type: zones limited to the node
// class's, prices from their sources, and availability from capacity errors and spot quotes.
func TestBuildInstanceTypesOfferings(t *testing.T) {
	cat := loadCatalog(t)
	infos := infosFromPages(catalogPages(cat))
	od := cloudprovider.PriceSource{Kind: cloudprovider.PricePricingAPI}
	spotSrc := cloudprovider.PriceSource{Kind: cloudprovider.PriceSpotHistory}
	snap := &ec2Snapshot{
		infos: infos,
		zones: map[string][]string{"m5.large": {"z-a", "z-b", "z-c"}, "m6g.large": {"z-a"}},
		onDemand: map[string]price{
			"m5.large":  {usd: 0.096, source: od},
			"m6g.large": {usd: 0.077, source: od},
		},
		spot: map[string]map[string]price{
			"m5.large": {"z-a": {usd: 0.03, source: spotSrc}, "z-b": {usd: 0.04, source: spotSrc}},
		},
		spotKnown: true,
	}
	q := typeQuery{zones: []string{"z-a", "z-b"}, arches: []string{v1.ArchitectureAmd64}}
	unavailable := map[offering]bool{{v1.CapacityTypeSpot, "m5.large", "z-b"}: true}
	types := buildInstanceTypes(snap, q, unavailable)
	if len(types) != 1 || types[0].Name != "m5.large" {
		t.Fatalf("types %v, want only m5.large (m6g.large is arm64 without an AMI)", names(types))
	}
	type key struct{ zone, ct string }
	got := map[key]cloudprovider.Offering{}
	for _, o := range types[0].Offerings {
		got[key{o.Zone, o.CapacityType}] = o
	}
	want := map[key]struct {
		price     float64
		available bool
		kind      string
	}{
		{"z-a", v1.CapacityTypeOnDemand}: {0.096, true, cloudprovider.PricePricingAPI},
		{"z-a", v1.CapacityTypeSpot}:     {0.03, true, cloudprovider.PriceSpotHistory},
		{"z-b", v1.CapacityTypeOnDemand}: {0.096, true, cloudprovider.PricePricingAPI},
		{"z-b", v1.CapacityTypeSpot}:     {0.04, false, cloudprovider.PriceSpotHistory},
	}
	if len(got) != len(want) {
		t.Fatalf("offerings %+v, want %d (z-c has no subnet)", types[0].Offerings, len(want))
	}
	for k, w := range want {
		o := got[k]
		if o.Price != w.price || o.Available != w.available || o.PriceSource.Kind != w.kind {
			t.Errorf("%v: %+v, want price %v available %v source %s", k, o, w.price, w.available, w.kind)
		}
	}
	// Before any spot history was read, spot prices are synthetic and available.
	snap.spotKnown = false
	for _, o := range buildInstanceTypes(snap, q, nil)[0].Offerings {
		if o.CapacityType == v1.CapacityTypeSpot && (o.PriceSource.Kind != cloudprovider.PriceSynthetic || !o.Available || o.Price <= 0) {
			t.Errorf("spot offering before history %+v, want an available synthetic price", o)
		}
	}
}

func names(types []*cloudprovider.InstanceType) []string {
	out := make([]string, len(types))
	for i, it := range types {
		out[i] = it.Name
	}
	return out
}

// BenchmarkInstanceTypesFromPages converts the 1,271 catalog types from DescribeInstanceTypes
// pages into the engine's instance types, with on-demand and spot offerings in three zones.
func BenchmarkInstanceTypesFromPages(b *testing.B) {
	cat := loadCatalog(b)
	pages := catalogPages(cat)
	zones := map[string][]string{}
	onDemand := map[string]price{}
	for _, e := range cat.Entries {
		zones[e.Name] = e.Zones
		onDemand[e.Name] = price{usd: e.OnDemandPrice, source: cloudprovider.PriceSource{Kind: cloudprovider.PriceCatalog}}
	}
	q := typeQuery{zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"}, arches: []string{v1.ArchitectureAmd64, v1.ArchitectureArm64}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		snap := &ec2Snapshot{infos: infosFromPages(pages), zones: zones, onDemand: onDemand}
		if types := buildInstanceTypes(snap, q, nil); len(types) != len(cat.Entries) {
			b.Fatalf("built %d types, want %d", len(types), len(cat.Entries))
		}
	}
}
