package metrics

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Sink turns journal entries into counters.
type Sink struct {
	created, launched, registered, initialized, terminated *prometheus.CounterVec
	disrupted, decisions, interruptions, blocked, entries  *prometheus.CounterVec
}

// NewSink registers the counters on reg.
func NewSink(reg prometheus.Registerer) *Sink {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		reg.MustRegister(c)
		return c
	}
	return &Sink{
		created:       counter("karpenter_nodeclaims_created_total", "NodeClaims created, by NodePool and reason.", "nodepool", "reason"),
		launched:      counter("karpenter_nodeclaims_launched_total", "NodeClaims launched, by NodePool.", "nodepool"),
		registered:    counter("karpenter_nodeclaims_registered_total", "NodeClaims registered, by NodePool.", "nodepool"),
		initialized:   counter("karpenter_nodeclaims_initialized_total", "NodeClaims initialized, by NodePool.", "nodepool"),
		terminated:    counter("karpenter_nodeclaims_terminated_total", "NodeClaims terminated, by NodePool.", "nodepool"),
		disrupted:     counter("karpenter_nodeclaims_disrupted_total", "NodeClaims disrupted, by NodePool and reason.", "nodepool", "reason"),
		decisions:     counter("karpenter_voluntary_disruption_decisions_total", "Disruption decisions, by decision, reason and consolidation type.", "decision", "reason", "consolidation_type"),
		interruptions: counter("karpenter_interruption_received_messages_total", "Interruption messages received, by type.", "message_type"),
		blocked:       counter("nodepilot_disruption_blocked_total", "Times a node was found not disruptable, by reason.", "reason"),
		entries:       counter("nodepilot_journal_entries_total", "Journal entries, by kind and reason.", "kind", "reason"),
	}
}

// Observe counts one entry; dry-run entries count only as journal entries.
func (s *Sink) Observe(e journal.Entry) {
	s.entries.WithLabelValues(string(e.Kind), e.Reason).Inc()
	if e.DryRun {
		return
	}
	switch e.Kind {
	case journal.KindProvisioning:
		if e.Reason == "NodeClaimCreated" {
			s.created.WithLabelValues(e.NodePool, "provisioning").Inc()
		}
	case journal.KindLaunch:
		if e.Reason == "Launched" {
			s.launched.WithLabelValues(e.NodePool).Inc()
		}
	case journal.KindRegistration:
		s.registered.WithLabelValues(e.NodePool).Inc()
	case journal.KindInitialization:
		s.initialized.WithLabelValues(e.NodePool).Inc()
	case journal.KindTermination:
		if e.Reason == "Terminated" {
			s.terminated.WithLabelValues(e.NodePool).Inc()
		}
	case journal.KindInterruption:
		if e.MessageType != "" { // not the queue's own errors
			s.interruptions.WithLabelValues(e.MessageType).Inc()
		}
	case journal.KindBlocked:
		s.blocked.WithLabelValues(e.Reason).Inc()
	case journal.KindDisruption:
		switch {
		case e.Decision != "":
			// Karpenter's reason label is the disruption reason in lower case (underutilized, empty, drifted).
			s.decisions.WithLabelValues(e.Decision, strings.ToLower(e.Reason), consolidationType(e.Method)).Inc()
		case e.Reason == "CandidatesDeleted" || e.Method == "Expiration":
			reason := e.Reason
			if e.Method == "Expiration" {
				reason = "Expired"
			}
			s.disrupted.WithLabelValues(e.NodePool, reason).Add(float64(len(e.NodeClaims)))
		case e.Reason == "ReplacementsLaunched":
			s.created.WithLabelValues(e.NodePool, "disruption").Add(float64(len(e.NodeClaims)))
		}
	}
}

func consolidationType(method string) string {
	switch method {
	case "MultiNodeConsolidation":
		return "multi"
	case "SingleNodeConsolidation":
		return "single"
	case "Emptiness":
		return "empty"
	}
	return ""
}

// Collector computes gauges from a snapshot at each scrape.
type Collector struct {
	cluster                                   *state.Cluster
	types                                     cost.Types
	usage, limit, nodes, cost, fleet, pending *prometheus.Desc
}

// NewCollector returns a collector over the cluster state; types prices nodes.
func NewCollector(cluster *state.Cluster, types cost.Types) *Collector {
	return &Collector{cluster: cluster, types: types,
		usage:   prometheus.NewDesc("karpenter_nodepools_usage", "Resources held by a NodePool's nodes.", []string{"nodepool", "resource_type"}, nil),
		limit:   prometheus.NewDesc("karpenter_nodepools_limit", "A NodePool's limits.", []string{"nodepool", "resource_type"}, nil),
		nodes:   prometheus.NewDesc("nodepilot_nodes", "Nodes by NodePool and capacity type.", []string{"nodepool", "capacity_type"}, nil),
		cost:    prometheus.NewDesc("nodepilot_nodepool_cost_per_hour", "What a NodePool's nodes cost, in US dollars per hour.", []string{"nodepool", "synthetic"}, nil),
		fleet:   prometheus.NewDesc("nodepilot_fleet_cost_per_hour", "What every node costs, in US dollars per hour.", []string{"synthetic"}, nil),
		pending: prometheus.NewDesc("nodepilot_pods_pending", "Pods waiting for capacity.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.usage, c.limit, c.nodes, c.cost, c.fleet, c.pending} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	snap := c.cluster.Snapshot()
	count := map[[2]string]int{}
	for _, sn := range snap.Nodes {
		if pool := sn.NodePool(); pool != "" {
			count[[2]string{pool, sn.Labels()[karpv1.CapacityTypeLabelKey]}]++
		}
	}
	for pool, u := range snap.PoolUsage() {
		for name, q := range u.Capacity {
			ch <- prometheus.MustNewConstMetric(c.usage, prometheus.GaugeValue, q.AsApproximateFloat64(), pool, string(name))
		}
	}
	for _, np := range snap.NodePools {
		for name, q := range np.Spec.Limits {
			ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, q.AsApproximateFloat64(), np.Name, string(name))
		}
	}
	for k, n := range count {
		ch <- prometheus.MustNewConstMetric(c.nodes, prometheus.GaugeValue, float64(n), k[0], k[1])
	}
	fleet := cost.FleetOf(snap, c.types)
	for pool, s := range fleet.ByNodePool {
		if pool != "" {
			ch <- prometheus.MustNewConstMetric(c.cost, prometheus.GaugeValue, s.PerHour, pool, boolLabel(s.Synthetic))
		}
	}
	ch <- prometheus.MustNewConstMetric(c.fleet, prometheus.GaugeValue, fleet.Total.PerHour, boolLabel(fleet.Total.Synthetic))
	pending := 0
	for _, p := range snap.Pods {
		if pods.IsProvisionable(p) {
			pending++
		}
	}
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(pending))
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
