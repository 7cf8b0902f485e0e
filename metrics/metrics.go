package metrics

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Sink turns journal entries into counters: Karpenter's families, with Karpenter's labels and
// label values, and nodepilot's own where Karpenter has none. It is their prometheus.Collector.
type Sink struct {
	created, terminated, disrupted, nodesCreated, nodesTerminated       *prometheus.CounterVec
	decisions, decisionsByPool, savings, interruptions, deletedMessages *prometheus.CounterVec
	nodesDrained, evictions, failedValidations, queueFailures           *prometheus.CounterVec
	launched, registered, initialized, blocked, entries                 *prometheus.CounterVec
	moves, podsDrained, launchFailures, terminationFailures             *prometheus.CounterVec

	scheduling, nodeClaimTermination, nodeLifetime, decision, evaluation, score, instanceTermination *prometheus.HistogramVec
	queueDuration, batchSize, batchTime                                                              *prometheus.HistogramVec

	nodeTermination *prometheus.SummaryVec

	unschedulable, eligible, userData, queueDepth, unfinished, ignored *prometheus.GaugeVec

	all []prometheus.Collector // every one of them
}

// NewSink registers the counters on reg.
func NewSink(reg prometheus.Registerer) *Sink {
	s := &Sink{}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		s.all = append(s.all, c)
		return c
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
		s.all = append(s.all, h)
		return h
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
		s.all = append(s.all, g)
		return g
	}
	s.created = counter("karpenter_nodeclaims_created_total", "NodeClaims created, by reason and NodePool.", "reason", "nodepool", "min_values_relaxed")
	s.terminated = counter("karpenter_nodeclaims_terminated_total", "NodeClaims terminated, by NodePool, capacity type and zone.", "nodepool", "capacity_type", "zone")
	s.disrupted = counter("karpenter_nodeclaims_disrupted_total", "NodeClaims disrupted, by reason, NodePool and capacity type.", "reason", "nodepool", "capacity_type")
	s.nodesCreated = counter("karpenter_nodes_created_total", "Nodes registered, by NodePool and zone.", "nodepool", "zone")
	s.nodesTerminated = counter("karpenter_nodes_terminated_total", "Nodes terminated, by NodePool and zone.", "nodepool", "zone")
	s.decisions = counter("karpenter_voluntary_disruption_decisions_total", "Disruption decisions, by decision, reason and consolidation type.", "decision", "reason", "consolidation_type")
	s.decisionsByPool = counter("karpenter_voluntary_disruption_decisions_by_nodepool_total", "Disruption decisions, by NodePool, decision, reason and consolidation type.", "nodepool", "decision", "reason", "consolidation_type")
	s.savings = counter("nodepilot_voluntary_disruption_savings_dollars_per_hour_total",
		"What disruption decisions saved, in US dollars per hour of fleet cost, summed over decisions, by NodePool and reason.", "nodepool", "reason")
	s.interruptions = counter("karpenter_interruption_received_messages_total", "Interruption messages received, by type.", "message_type")
	s.deletedMessages = counter("karpenter_interruption_deleted_messages_total", "Interruption messages deleted from the queue.")
	s.nodesDrained = counter("karpenter_nodes_drained_total", "Nodes drained, by NodePool.", "nodepool")
	s.evictions = counter("karpenter_pods_eviction_requests_total", "Eviction requests, by HTTP code.", "code")
	s.failedValidations = counter("karpenter_voluntary_disruption_failed_validations_total",
		"Consolidation decisions abandoned when checked again after the validation delay, by consolidation type.", "consolidation_type")
	s.queueFailures = counter("karpenter_voluntary_disruption_queue_failures_total",
		"Disruption commands abandoned on their way (a replacement failed or timed out), by decision, reason and consolidation type.",
		"decision", "reason", "consolidation_type")
	s.launched = counter("nodepilot_nodeclaims_launched_total", "NodeClaims launched, by NodePool.", "nodepool")
	s.registered = counter("nodepilot_nodeclaims_registered_total", "NodeClaims registered, by NodePool.", "nodepool")
	s.initialized = counter("nodepilot_nodeclaims_initialized_total", "NodeClaims initialized, by NodePool.", "nodepool")
	s.blocked = counter("nodepilot_disruption_blocked_total", "Times a node was found not disruptable, by reason.", "reason")
	s.entries = counter("nodepilot_journal_entries_total", "Journal entries, by kind and reason.", "kind", "reason")
	s.moves = counter("karpenter_consolidation_moves_total", "Consolidation moves weighed, by decision (approved or rejected), NodePool and consolidation policy.",
		"decision", "nodepool", "policy")
	s.scheduling = histogram("karpenter_scheduler_scheduling_duration_seconds", "How long provisioning's scheduling simulations take, in seconds.",
		durationBuckets, "controller")
	s.nodeClaimTermination = histogram("karpenter_nodeclaims_termination_duration_seconds", "How long NodeClaims take to terminate once deleted, in seconds.",
		prometheus.ExponentialBuckets(1, 2, 12), "nodepool")
	s.nodeLifetime = histogram("karpenter_nodes_lifetime_duration_seconds", "How long nodes lived, from creation to termination, in seconds.",
		lifetimeBuckets(), "nodepool")
	s.decision = histogram("karpenter_pods_scheduling_decision_duration_seconds",
		"How long a pod waited, once found provisionable, for the provisioner's first scheduling decision about it, in seconds.", durationBuckets)
	s.evaluation = histogram("karpenter_voluntary_disruption_decision_evaluation_duration_seconds",
		"How long a disruption method takes to evaluate its candidates, in seconds, by reason and consolidation type.", durationBuckets, "reason", "consolidation_type")
	s.score = histogram("karpenter_consolidation_score", "Scores of the consolidation moves weighed for Balanced NodePools, by decision, NodePool and policy.",
		[]float64{0.1, 0.25, 0.33, 0.5, 1, 2, 5, 10}, "decision", "nodepool", "policy")
	s.podsDrained = counter("karpenter_pods_drained_total", "Pods evicted by drains, by the disruption reason of their node.", "reason")
	s.instanceTermination = histogram("karpenter_nodeclaims_instance_termination_duration_seconds",
		"How long instances take to go once their termination begins, in seconds.", prometheus.ExponentialBuckets(1, 2, 11), "nodepool")
	s.nodeTermination = prometheus.NewSummaryVec(prometheus.SummaryOpts{Name: "karpenter_nodes_termination_duration_seconds",
		Help:       "How long nodes take from their deletion to their finalizer's removal, in seconds (nodepilot drains a node under its NodeClaim's deletion, and measures from it).",
		Objectives: map[float64]float64{0: 0.01, 0.5: 0.01, 0.9: 0.01, 0.99: 0.01, 1: 0.01}}, []string{"nodepool"})
	s.all = append(s.all, s.nodeTermination)
	s.launchFailures = counter("karpenter_cloudprovider_instance_launch_failures_total",
		"Offerings a launch failed on, by zone, zone ID, capacity type and Karpenter's reason.", "zone", "zone_id", "capacity_type", "reason")
	s.terminationFailures = counter("karpenter_cloudprovider_instance_termination_failures_total",
		"Instance terminations the cloud refused, by zone and zone ID.", "zone", "zone_id")
	s.queueDuration = histogram("karpenter_interruption_message_queue_duration_seconds",
		"How long interruption messages waited, from the cloud sending them to their handling, in seconds.", durationBuckets)
	s.batchSize = histogram("karpenter_cloudprovider_batcher_batch_size", "How many requests a batched cloud call carried, by batcher.",
		sizeBuckets(), "batcher")
	s.batchTime = histogram("karpenter_cloudprovider_batcher_batch_time_seconds", "How long a batcher's window stayed open, in seconds.",
		durationBuckets, "batcher")
	s.userData = gauge("karpenter_ec2nodeclasses_userdata_bytes", "The size of the user data an EC2NodeClass renders, in decoded bytes.", "nodeclass")
	s.queueDepth = gauge("karpenter_scheduler_queue_depth", "Pods waiting in the queue of a running scheduling simulation.", "controller", "scheduling_id")
	s.unfinished = gauge("karpenter_scheduler_unfinished_work_seconds", "How long a running scheduling simulation has run, in seconds.",
		"controller", "scheduling_id")
	s.ignored = gauge("karpenter_scheduler_ignored_pods_count", "Pending pods the latest provisioning pass ignored: their node selectors cannot be honoured.")
	s.unschedulable = gauge("karpenter_scheduler_unschedulable_pods_count", "Pods the latest scheduling simulation could not place, by controller.", "controller")
	s.eligible = gauge("karpenter_voluntary_disruption_eligible_nodes", "Nodes the latest pass of a disruption method could consider, by reason.", "reason")
	reg.MustRegister(s)
	return s
}

// durationBuckets are Karpenter's (controller-runtime's, extended to ten minutes).
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1,
	1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60, 120, 150, 300, 450, 600}

// sizeBuckets are Karpenter's batch size buckets.
func sizeBuckets() []float64 {
	return []float64{1, 2, 4, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 125, 150, 175, 200,
		225, 250, 275, 300, 350, 400, 450, 500, 550, 600, 700, 800, 900, 1000}
}

// lifetimeBuckets are Karpenter's node lifetime buckets: 15 minutes to 30 days.
func lifetimeBuckets() []float64 {
	var out []float64
	for _, d := range []time.Duration{15 * time.Minute, 30 * time.Minute, 45 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour,
		6 * time.Hour, 8 * time.Hour, 12 * time.Hour, 24 * time.Hour, 2 * 24 * time.Hour, 3 * 24 * time.Hour, 5 * 24 * time.Hour,
		7 * 24 * time.Hour, 10 * 24 * time.Hour, 14 * 24 * time.Hour, 21 * 24 * time.Hour, 30 * 24 * time.Hour} {
		out = append(out, d.Seconds())
	}
	return out
}

// Describe implements prometheus.Collector.
func (s *Sink) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range s.all {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (s *Sink) Collect(ch chan<- prometheus.Metric) {
	for _, c := range s.all {
		c.Collect(ch)
	}
}

// Measure records a measurement in its family; dry runs measure too, since nothing in them is
// a write.
func (s *Sink) Measure(m journal.Measurement) {
	switch m.Measure {
	case journal.MeasureSchedulingDecision:
		s.decision.WithLabelValues().Observe(m.Value)
	case journal.MeasureUnschedulablePods:
		s.unschedulable.WithLabelValues(m.Controller).Set(m.Value)
	case journal.MeasureIgnoredPods:
		s.ignored.WithLabelValues().Set(m.Value)
	case journal.MeasureEligibleNodes:
		s.eligible.WithLabelValues(disruptionReason(m.Method)).Set(m.Value)
	case journal.MeasureEvaluation:
		s.evaluation.WithLabelValues(disruptionReason(m.Method), consolidationType(m.Method)).Observe(m.Value)
	case journal.MeasureConsolidationMove:
		s.moves.WithLabelValues(m.Decision, m.NodePool, m.Policy).Inc()
	case journal.MeasureConsolidationScore:
		s.score.WithLabelValues(m.Decision, m.NodePool, m.Policy).Observe(m.Value)
	case journal.MeasureLaunchFailure:
		s.launchFailures.WithLabelValues(m.Zone, m.ZoneID, m.CapacityType, m.Reason).Inc()
	case journal.MeasureTerminationFailure:
		s.terminationFailures.WithLabelValues(m.Zone, m.ZoneID).Inc()
	case journal.MeasureUserDataBytes:
		s.userData.WithLabelValues(m.NodeClass).Set(m.Value)
	case journal.MeasureNodeClassGone:
		s.userData.DeleteLabelValues(m.NodeClass)
	case journal.MeasureSolveQueue:
		s.queueDepth.WithLabelValues(m.Controller, m.SchedulingID).Set(m.Value)
	case journal.MeasureSolveRunning:
		s.unfinished.WithLabelValues(m.Controller, m.SchedulingID).Set(m.Value)
	case journal.MeasureSolveDone: // as Karpenter, a finished solve leaves no series
		s.queueDepth.DeleteLabelValues(m.Controller, m.SchedulingID)
		s.unfinished.DeleteLabelValues(m.Controller, m.SchedulingID)
	case journal.MeasureBatchSize:
		s.batchSize.WithLabelValues(m.Batcher).Observe(m.Value)
	case journal.MeasureBatchTime:
		s.batchTime.WithLabelValues(m.Batcher).Observe(m.Value)
	}
}

// Observe counts one entry; dry-run entries count only as journal entries.
func (s *Sink) Observe(e journal.Entry) {
	s.entries.WithLabelValues(string(e.Kind), string(e.Reason)).Inc()
	if e.DryRun {
		return
	}
	switch e.Kind {
	case journal.KindProvisioning:
		if e.Reason == journal.ReasonPodsPending && e.Took > 0 {
			s.scheduling.WithLabelValues("provisioner").Observe(e.Took.Seconds())
		}
		if e.Reason == journal.ReasonNodeClaimCreated {
			// nodepilot never relaxes minValues, so min_values_relaxed is always false.
			s.created.WithLabelValues("provisioned", e.NodePool, "false").Inc()
		}
	case journal.KindLaunch:
		if e.Reason == journal.ReasonLaunched {
			s.launched.WithLabelValues(e.NodePool).Inc()
		}
	case journal.KindRegistration:
		s.registered.WithLabelValues(e.NodePool).Inc()
		s.nodesCreated.WithLabelValues(e.NodePool, e.Zone).Inc()
	case journal.KindInitialization:
		s.initialized.WithLabelValues(e.NodePool).Inc()
	case journal.KindTermination:
		switch e.Reason {
		case journal.ReasonTerminated:
			s.terminated.WithLabelValues(e.NodePool, e.CapacityType, e.Zone).Inc()
			if e.Took > 0 {
				s.nodeClaimTermination.WithLabelValues(e.NodePool).Observe(e.Took.Seconds())
			}
			if e.Lived > 0 {
				s.nodeLifetime.WithLabelValues(e.NodePool).Observe(e.Lived.Seconds())
			}
			if e.InstanceTook > 0 {
				s.instanceTermination.WithLabelValues(e.NodePool).Observe(e.InstanceTook.Seconds())
			}
			if len(e.Nodes) > 0 { // a node is drained before its instance goes
				s.nodesTerminated.WithLabelValues(e.NodePool, e.Zone).Inc()
				s.nodesDrained.WithLabelValues(e.NodePool).Inc()
				if e.Took > 0 {
					s.nodeTermination.WithLabelValues(e.NodePool).Observe(e.Took.Seconds())
				}
			}
		case journal.ReasonEvicted: // the evictions the API accepted, one request per pod
			s.evictions.WithLabelValues("200").Add(float64(len(e.Pods)))
			s.podsDrained.WithLabelValues(cmp.Or(e.DisruptionReason, "Forceful Termination")).Add(float64(len(e.Pods)))
		}
	case journal.KindAction:
		if e.Reason == journal.Reason(executor.DeleteQueueMessage) && !e.Failed {
			s.deletedMessages.WithLabelValues().Inc()
		}
	case journal.KindInterruption:
		if e.MessageType != "" { // not the queue's own errors
			s.interruptions.WithLabelValues(e.MessageType).Inc()
			if e.Took > 0 {
				s.queueDuration.WithLabelValues().Observe(e.Took.Seconds())
			}
		}
	case journal.KindBlocked:
		s.blocked.WithLabelValues(string(e.Reason)).Inc()
	case journal.KindValidation:
		if e.Reason == disruption.BlockedValidationRejected {
			s.failedValidations.WithLabelValues(consolidationType(e.Method)).Inc()
		}
	case journal.KindDisruption:
		switch {
		case e.Reason == disruption.ReasonAbandoned:
			decision := "delete"
			if len(e.Replacements) > 0 {
				decision = "replace"
			}
			s.queueFailures.WithLabelValues(decision, disruptionReason(e.Method), consolidationType(e.Method)).Inc()
		case e.Decision != "":
			reason, kind := disruptionReason(e.Method), consolidationType(e.Method)
			s.decisions.WithLabelValues(e.Decision, reason, kind).Inc()
			s.decisionsByPool.WithLabelValues(e.NodePool, e.Decision, reason, kind).Inc()
			if saved := e.PriceBefore - e.PriceAfter; saved > 0 {
				s.savings.WithLabelValues(e.NodePool, reason).Add(saved)
			}
		case e.Reason == disruption.ReasonCandidatesDeleted || e.Method == "Expiration":
			s.disrupted.WithLabelValues(disruptionReason(e.Method), e.NodePool, e.CapacityType).Add(float64(len(e.NodeClaims)))
		case e.Reason == disruption.ReasonReplacementsLaunched:
			s.created.WithLabelValues(disruptionReason(e.Method), e.NodePool, "false").Add(float64(len(e.NodeClaims)))
		}
	}
}

// disruptionReason is Karpenter's reason label of a disruption method: the disruption reason in
// lower case.
func disruptionReason(method string) string {
	switch method {
	case "MultiNodeConsolidation", "SingleNodeConsolidation":
		return "underutilized"
	case "Emptiness":
		return "empty"
	case "Drift":
		return "drifted"
	case "Expiration":
		return "expired"
	}
	return strings.ToLower(method)
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
	cluster                                *state.Cluster
	clock                                  clock.PassiveClock
	usage, limit, cost, allowed, consuming *prometheus.Desc
	nodeCount, nodes, fleet, pending       *prometheus.Desc
	perNode                                *nodeGauges
	perPod                                 *podGauges
	offered                                Offered
	offerings                              *offeringGauges
	sync                                   *syncGauges
	build                                  prometheus.Metric
}

// NewCollector returns a collector over the cluster state; offered lists the instance types that
// price nodes and fill the cloud provider gauges, clock tells the
// budgets' schedules and the nodes' ages, wellKnown are the label keys the per-node gauges carry
// (Karpenter's well-known labels and the provider's).
func NewCollector(cluster *state.Cluster, offered Offered, clock clock.PassiveClock, wellKnown []string) *Collector {
	return &Collector{cluster: cluster, offered: offered, offerings: newOfferingGauges(), clock: clock, perNode: newNodeGauges(wellKnown), perPod: newPodGauges(),
		sync: newSyncGauges(), build: buildInfo(),
		usage:     prometheus.NewDesc("karpenter_nodepools_usage", "Resources held by a NodePool's nodes.", []string{"nodepool", "resource_type"}, nil),
		limit:     prometheus.NewDesc("karpenter_nodepools_limit", "A NodePool's limits.", []string{"nodepool", "resource_type"}, nil),
		cost:      prometheus.NewDesc("karpenter_nodepools_cost_total", "What a NodePool's nodes cost, in US dollars per hour.", []string{"nodepool"}, nil),
		allowed:   prometheus.NewDesc("karpenter_nodepools_allowed_disruptions", "How many of a NodePool's nodes its budgets let be disrupted now, by reason.", []string{"nodepool", "reason"}, nil),
		consuming: prometheus.NewDesc("karpenter_nodepools_nodes_consuming_budgets", "How many of a NodePool's nodes are being disrupted, by reason.", []string{"nodepool", "reason"}, nil),
		nodeCount: prometheus.NewDesc("karpenter_cluster_state_node_count", "Nodes in the cluster state.", nil, nil),
		nodes:     prometheus.NewDesc("nodepilot_nodes", "Nodes by NodePool and capacity type.", []string{"nodepool", "capacity_type"}, nil),
		fleet:     prometheus.NewDesc("nodepilot_fleet_cost_per_hour", "What every node costs, in US dollars per hour.", []string{"synthetic"}, nil),
		pending:   prometheus.NewDesc("nodepilot_pods_pending", "Pods waiting for capacity.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	descs := []*prometheus.Desc{c.usage, c.limit, c.cost, c.allowed, c.consuming, c.nodeCount, c.nodes, c.fleet, c.pending,
		c.sync.synced, c.sync.unsynced, c.build.Desc()}
	for _, d := range slices.Concat(descs, c.perNode.descs(), c.perPod.descs(), c.offerings.descs()) {
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
	ch <- prometheus.MustNewConstMetric(c.nodeCount, prometheus.GaugeValue, float64(len(snap.Nodes)))
	for pool, u := range snap.PoolUsage() {
		for name, q := range u.Capacity {
			ch <- prometheus.MustNewConstMetric(c.usage, prometheus.GaugeValue, q.AsApproximateFloat64(), pool, string(name))
		}
	}
	now := c.clock.Now()
	for _, np := range snap.NodePools {
		for name, q := range np.Spec.Limits {
			ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, q.AsApproximateFloat64(), np.Name, string(name))
		}
		for _, a := range disruption.Budgets(snap, np.Name, now) {
			ch <- prometheus.MustNewConstMetric(c.allowed, prometheus.GaugeValue, float64(a.Allowed), np.Name, string(a.Reason))
			ch <- prometheus.MustNewConstMetric(c.consuming, prometheus.GaugeValue, float64(a.Disrupting), np.Name, string(a.Reason))
		}
	}
	for k, n := range count {
		ch <- prometheus.MustNewConstMetric(c.nodes, prometheus.GaugeValue, float64(n), k[0], k[1])
	}
	fleet := cost.FleetOf(snap, c.types())
	for pool, s := range fleet.ByNodePool {
		if pool != "" {
			ch <- prometheus.MustNewConstMetric(c.cost, prometheus.GaugeValue, s.PerHour, pool)
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
	c.perNode.collect(ch, snap, now)
	c.perPod.collect(ch, snap, c.cluster.PodSchedulings(), now)
	c.offerings.collect(ch, snap, c.offered)
	c.sync.collect(ch, snap.Synced, now)
	ch <- c.build
}

// types indexes the offered instance types for one scrape.
func (c *Collector) types() cost.Types {
	byPool := map[string]map[string]*cloudprovider.InstanceType{}
	return func(pool, name string) *cloudprovider.InstanceType {
		byName, ok := byPool[pool]
		if !ok {
			byName = map[string]*cloudprovider.InstanceType{}
			for _, it := range c.offered(pool) {
				byName[it.Name] = it
			}
			byPool[pool] = byName
		}
		return byName[name]
	}
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
