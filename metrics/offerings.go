package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/state"
)

// Offered lists the instance types a NodePool may launch, from what the cloud provider already
// knows (a scrape must not call the cloud), or nil.
type Offered func(nodePool string) []*cloudprovider.InstanceType

// offeringGauges are Karpenter's cloud provider gauges: each instance type's size, and each
// offering's availability and price, over the instance types of every NodePool.
type offeringGauges struct {
	cpu, memory, available, price *prometheus.Desc
}

func newOfferingGauges() *offeringGauges {
	labels := []string{"instance_type", "capacity_type", "zone"}
	return &offeringGauges{
		cpu:       prometheus.NewDesc("karpenter_cloudprovider_instance_type_cpu_cores", "An instance type's vCPUs.", []string{"instance_type"}, nil),
		memory:    prometheus.NewDesc("karpenter_cloudprovider_instance_type_memory_bytes", "An instance type's memory, in bytes.", []string{"instance_type"}, nil),
		available: prometheus.NewDesc("karpenter_cloudprovider_instance_type_offering_available", "1 when an offering can be launched, 0 when it cannot (no capacity lately).", labels, nil),
		price:     prometheus.NewDesc("karpenter_cloudprovider_instance_type_offering_price_estimate", "An offering's price, in US dollars per hour.", labels, nil),
	}
}

func (g *offeringGauges) descs() []*prometheus.Desc {
	return []*prometheus.Desc{g.cpu, g.memory, g.available, g.price}
}

// collect sends the gauges of each instance type and offering once, however many NodePools
// offer it.
func (g *offeringGauges) collect(ch chan<- prometheus.Metric, snap *state.Snapshot, offered Offered) {
	types, offerings := map[string]bool{}, map[[3]string]bool{}
	for _, np := range snap.NodePools {
		for _, it := range offered(np.Name) {
			if !types[it.Name] {
				types[it.Name] = true
				ch <- prometheus.MustNewConstMetric(g.cpu, prometheus.GaugeValue, it.Capacity.Cpu().AsApproximateFloat64(), it.Name)
				ch <- prometheus.MustNewConstMetric(g.memory, prometheus.GaugeValue, it.Capacity.Memory().AsApproximateFloat64(), it.Name)
			}
			for _, o := range it.Offerings {
				key := [3]string{it.Name, o.CapacityType, o.Zone}
				if offerings[key] {
					continue
				}
				offerings[key] = true
				ch <- prometheus.MustNewConstMetric(g.available, prometheus.GaugeValue, boolValue(o.Available), key[:]...)
				ch <- prometheus.MustNewConstMetric(g.price, prometheus.GaugeValue, o.Price, key[:]...)
			}
		}
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
