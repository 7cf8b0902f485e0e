package catalog

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func TestLoadCounts(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var arm, gpu, synthetic int
	for _, e := range c.Entries {
		if e.Arch == "arm64" {
			arm++
		}
		if e.GPUCount > 0 {
			gpu++
		}
		if e.ZonesSynthetic {
			synthetic++
		}
	}
	// The figures PROVENANCE.md states.
	if len(c.Entries) != 1271 || arm != 396 || gpu != 64 || synthetic != 111 {
		t.Errorf("entries %d, arm64 %d, gpu %d, without zones %d; want 1271, 396, 64, 111", len(c.Entries), arm, gpu, synthetic)
	}
	if Provenance() == "" {
		t.Error("provenance not embedded")
	}
}

// The allocatable figures Karpenter computes for AL2023 (issue 2 states them).
func TestAllocatable(t *testing.T) {
	types := byName(t)
	tests := []struct {
		name        string
		cpu, memory string
		pods        int64
	}{
		{"a1.medium", "940m", "1392Mi", 8},
		{"a1.large", "1930m", "3055Mi", 29},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alloc := types[tt.name].Allocatable()
			if got := alloc.Cpu().String(); got != tt.cpu {
				t.Errorf("cpu %s, want %s", got, tt.cpu)
			}
			if got := alloc.Memory().String(); got != tt.memory {
				t.Errorf("memory %s, want %s", got, tt.memory)
			}
			if got := alloc.Pods().Value(); got != tt.pods {
				t.Errorf("pods %d, want %d", got, tt.pods)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	types := byName(t)
	tests := []struct {
		name   string
		labels map[string]string
		absent []string
	}{
		{"a1.medium", map[string]string{
			corev1.LabelArchStable: "arm64", corev1.LabelOSStable: "linux", corev1.LabelInstanceTypeStable: "a1.medium",
			awsv1.LabelInstanceCategory: "a", awsv1.LabelInstanceFamily: "a1", awsv1.LabelInstanceGeneration: "1",
			awsv1.LabelInstanceSize: "medium", awsv1.LabelInstanceCPU: "1", awsv1.LabelInstanceMemory: "2048",
			awsv1.LabelInstanceNetworkBandwidth: "500", awsv1.LabelInstanceHypervisor: "nitro",
		}, []string{awsv1.LabelInstanceGPUCount}},
		{"g5.xlarge", map[string]string{
			awsv1.LabelInstanceGPUCount: "1", awsv1.LabelInstanceGPUName: "a10g",
			awsv1.LabelInstanceGPUMemory: "22888", awsv1.LabelInstanceGPUManufacturer: "nvidia",
		}, nil},
		{"c7g.metal", map[string]string{awsv1.LabelInstanceSize: "metal"}, []string{awsv1.LabelInstanceHypervisor}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := types[tt.name].Requirements.Labels()
			for k, v := range tt.labels {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			for _, k := range tt.absent {
				if _, ok := got[k]; ok {
					t.Errorf("%s present, want absent", k)
				}
			}
		})
	}
}

func TestGPUCapacity(t *testing.T) {
	types := byName(t)
	if got := types["g5.12xlarge"].Capacity[instancetype.ResourceNvidiaGPU]; got.Value() != 4 {
		t.Errorf("g5.12xlarge nvidia.com/gpu = %s, want 4", got.String())
	}
}

func TestOfferings(t *testing.T) {
	types := byName(t)
	it := types["m5.large"]
	var spot, od int
	for _, o := range it.Offerings {
		switch o.CapacityType {
		case karpv1.CapacityTypeSpot:
			spot++
			if !o.PriceSource.Synthetic() || o.Price <= 0 || o.Price >= 0.096 {
				t.Errorf("spot offering %+v: want a synthetic price below on-demand", o)
			}
		case karpv1.CapacityTypeOnDemand:
			od++
			if o.Price != 0.096 || o.PriceSource.Kind != cloudprovider.PriceCatalog {
				t.Errorf("on-demand offering %+v: want the catalog's 0.096", o)
			}
		}
	}
	if spot == 0 || spot != od {
		t.Errorf("%d spot and %d on-demand offerings", spot, od)
	}
	if a, b := SyntheticSpotPrice("m5.large", "us-east-1a", 0.096), SyntheticSpotPrice("m5.large", "us-east-1a", 0.096); a != b {
		t.Error("synthetic spot price is not deterministic")
	}
	zoned := mustLoad(t).InstanceTypes(Options{Zones: []string{"us-east-1a"}})
	for _, it := range zoned {
		for _, o := range it.Offerings {
			if o.Zone != "us-east-1a" {
				t.Fatalf("%s offered in %s outside the zone filter", it.Name, o.Zone)
			}
		}
	}
}

func TestKubeletOverrides(t *testing.T) {
	maxPods := int32(110)
	c := mustLoad(t)
	var m5 *cloudprovider.InstanceType
	for _, it := range c.InstanceTypes(Options{Options: instancetype.Options{Kubelet: instancetype.Kubelet{
		MaxPods:      &maxPods,
		EvictionHard: map[string]string{"memory.available": "5%"},
	}}}) {
		if it.Name == "m5.large" {
			m5 = it
		}
	}
	if got := m5.Capacity.Pods().Value(); got != 110 {
		t.Errorf("pods %d, want 110", got)
	}
	// 5% of m5.large's 7577Mi capacity (8192Mi less 7.5%) rounded up, in bytes.
	want := int64(397253018)
	if got := m5.Overhead.EvictionThreshold.Memory().Value(); got != want {
		t.Errorf("memory eviction threshold %d, want %d", got, want)
	}
}

func mustLoad(t *testing.T) *Catalog {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func byName(t *testing.T) map[string]*cloudprovider.InstanceType {
	out := map[string]*cloudprovider.InstanceType{}
	for _, it := range mustLoad(t).InstanceTypes(Options{}) {
		out[it.Name] = it
	}
	return out
}

func TestAbsentLabelsExcludeTypes(t *testing.T) {
	types := byName(t)
	wantsGPU := requirements.New(awsv1.LabelInstanceGPUCount, corev1.NodeSelectorOpGt, "0")
	tests := []struct {
		name string
		want bool
	}{{"g5.xlarge", true}, {"m5.large", false}}
	for _, tt := range tests {
		got := types[tt.name].Requirements.Get(awsv1.LabelInstanceGPUCount).Intersects(wantsGPU)
		if got != tt.want {
			t.Errorf("%s allows a GPU requirement: %v, want %v", tt.name, got, tt.want)
		}
	}
}
