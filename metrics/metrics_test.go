package metrics

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/nodepilot/nodepilot/engine/journal"
)

// counted observes entries on a fresh sink and returns the family's counters by their labels
// ("name=value,..." in label order).
func counted(t *testing.T, family string, entries ...journal.Entry) map[string]float64 {
	t.Helper()
	s := NewSink(prometheus.NewRegistry())
	for _, e := range entries {
		s.Observe(e)
	}
	got := map[string]float64{}
	for _, m := range series(t, s, family) {
		got[labelString(m.GetLabel())] = m.GetCounter().GetValue()
	}
	return got
}

// labelString writes labels as "name=value,..." in their order.
func labelString(labels []*dto.LabelPair) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = l.GetName() + "=" + l.GetValue()
	}
	return strings.Join(parts, ",")
}

// series gathers c on a fresh registry and returns the family's series.
func series(t *testing.T, c prometheus.Collector, family string) []*dto.Metric {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == family {
			return f.GetMetric()
		}
	}
	return nil
}

func TestCountsAsKarpenterCountsThem(t *testing.T) {
	for _, tc := range []struct {
		name, family string
		entries      []journal.Entry
		want         map[string]float64
	}{
		// A disruption decision counts in Karpenter v1's family with its label values (the
		// reason in lower case, the consolidation type); a dry run's not at all.
		{"decisions", "karpenter_voluntary_disruption_decisions_total", []journal.Entry{
			{Kind: journal.KindDisruption, Method: "Emptiness", Reason: "Empty", Decision: "delete"},
			{Kind: journal.KindDisruption, Method: "SingleNodeConsolidation", Reason: "Underutilized", Decision: "replace"},
			{Kind: journal.KindDisruption, Method: "Drift", Reason: "Drifted", Decision: "replace"},
			{Kind: journal.KindDisruption, Method: "Drift", Reason: "Drifted", Decision: "replace", DryRun: true},
		}, map[string]float64{
			"consolidation_type=empty,decision=delete,reason=empty":           1,
			"consolidation_type=single,decision=replace,reason=underutilized": 1,
			"consolidation_type=,decision=replace,reason=drifted":             1,
		}},
		// A decision's saving ($/h before less after) adds up per NodePool and reason; one that
		// costs more (a drift replacement) or a dry run's adds nothing.
		{"savings", "nodepilot_voluntary_disruption_savings_dollars_per_hour_total", []journal.Entry{
			{Kind: journal.KindDisruption, Method: "Emptiness", Reason: "Empty", Decision: "delete", NodePool: "web", PriceBefore: 0.5},
			{Kind: journal.KindDisruption, Method: "Emptiness", Reason: "Empty", Decision: "delete", NodePool: "web", PriceBefore: 0.25},
			{Kind: journal.KindDisruption, Method: "SingleNodeConsolidation", Reason: "Underutilized", Decision: "replace", NodePool: "web", PriceBefore: 1, PriceAfter: 0.375},
			{Kind: journal.KindDisruption, Method: "Drift", Reason: "Drifted", Decision: "replace", NodePool: "web", PriceBefore: 1, PriceAfter: 2},
			{Kind: journal.KindDisruption, Method: "Emptiness", Reason: "Empty", Decision: "delete", NodePool: "web", PriceBefore: 4, DryRun: true},
		}, map[string]float64{
			"nodepool=web,reason=empty":         0.75,
			"nodepool=web,reason=underutilized": 0.625,
		}},
		// Received interruption messages count by Karpenter's message types; the queue's own
		// errors do not.
		{"interruptions", "karpenter_interruption_received_messages_total", []journal.Entry{
			{Kind: journal.KindInterruption, Reason: "SpotInterruption", MessageType: "spot_interrupted"},
			{Kind: journal.KindInterruption, Reason: "SpotInterruption", MessageType: "spot_interrupted"},
			{Kind: journal.KindInterruption, Reason: "StateChange", MessageType: "instance_stopped"},
			{Kind: journal.KindInterruption, Reason: "Error", Message: "interruption queue: access denied"},
		}, map[string]float64{"message_type=spot_interrupted": 2, "message_type=instance_stopped": 1}},
		// Created NodeClaims count by Karpenter's reasons: provisioned, or the disruption reason of
		// the replaced nodes.
		{"created", "karpenter_nodeclaims_created_total", []journal.Entry{
			{Kind: journal.KindProvisioning, Reason: "NodeClaimCreated", NodePool: "web"},
			{Kind: journal.KindDisruption, Reason: "ReplacementsLaunched", Method: "Drift", NodePool: "web", NodeClaims: []string{"a", "b"}},
		}, map[string]float64{
			"min_values_relaxed=false,nodepool=web,reason=provisioned": 1,
			"min_values_relaxed=false,nodepool=web,reason=drifted":     2,
		}},
		// Disrupted NodeClaims count per NodeClaim, by reason and capacity type.
		{"disrupted", "karpenter_nodeclaims_disrupted_total", []journal.Entry{
			{Kind: journal.KindDisruption, Reason: "CandidatesDeleted", Method: "MultiNodeConsolidation", NodePool: "web", CapacityType: "spot", NodeClaims: []string{"a", "b"}},
			{Kind: journal.KindDisruption, Reason: "Expired", Method: "Expiration", NodePool: "web", CapacityType: "on-demand", NodeClaims: []string{"c"}},
		}, map[string]float64{
			"capacity_type=spot,nodepool=web,reason=underutilized": 2,
			"capacity_type=on-demand,nodepool=web,reason=expired":  1,
		}},
		{"terminated", "karpenter_nodeclaims_terminated_total", []journal.Entry{
			{Kind: journal.KindTermination, Reason: "Terminated", NodePool: "web", CapacityType: "spot", Zone: "us-west-2a", NodeClaims: []string{"a"}, Nodes: []string{"n"}},
			{Kind: journal.KindTermination, Reason: "Evicted", NodePool: "web"},
		}, map[string]float64{"capacity_type=spot,nodepool=web,zone=us-west-2a": 1}},
		{"nodes created", "karpenter_nodes_created_total", []journal.Entry{
			{Kind: journal.KindRegistration, Reason: "Registered", NodePool: "web", Zone: "us-west-2b"},
		}, map[string]float64{"nodepool=web,zone=us-west-2b": 1}},
		{"nodes drained", "karpenter_nodes_drained_total", []journal.Entry{
			{Kind: journal.KindTermination, Reason: "Terminated", NodePool: "web", Nodes: []string{"n"}},
			{Kind: journal.KindTermination, Reason: "Terminated", NodePool: "web"}, // a NodeClaim that never had a node
		}, map[string]float64{"nodepool=web": 1}},
		// Drained pods count by their node's disruption reason, Karpenter's words when it has none.
		{"drained pods", "karpenter_pods_drained_total", []journal.Entry{
			{Kind: journal.KindTermination, Reason: "Evicted", Pods: []string{"default/a", "default/b"}, DisruptionReason: "Underutilized"},
			{Kind: journal.KindTermination, Reason: "Evicted", Pods: []string{"default/c"}},
		}, map[string]float64{"reason=Underutilized": 2, "reason=Forceful Termination": 1}},
		{"evictions", "karpenter_pods_eviction_requests_total", []journal.Entry{
			{Kind: journal.KindTermination, Reason: "Evicted", NodePool: "web", Pods: []string{"default/a", "default/b"}},
		}, map[string]float64{"code=200": 2}},
		{"deleted messages", "karpenter_interruption_deleted_messages_total", []journal.Entry{
			{Kind: journal.KindAction, Reason: "DeleteQueueMessage"},
			{Kind: journal.KindAction, Reason: "DeleteQueueMessage", Failed: true},
			{Kind: journal.KindAction, Reason: "DeleteQueueMessage", DryRun: true},
		}, map[string]float64{"": 1}},
		{"decisions by nodepool", "karpenter_voluntary_disruption_decisions_by_nodepool_total", []journal.Entry{
			{Kind: journal.KindDisruption, Method: "Emptiness", Reason: "Empty", Decision: "delete", NodePool: "web"},
		}, map[string]float64{"consolidation_type=empty,decision=delete,nodepool=web,reason=empty": 1}},
		// A consolidation decision abandoned after the validation delay counts by its type.
		{"failed validations", "karpenter_voluntary_disruption_failed_validations_total", []journal.Entry{
			{Kind: journal.KindValidation, Method: "SingleNodeConsolidation", Reason: "ValidationRejected"},
			{Kind: journal.KindValidation, Method: "Emptiness", Reason: "ValidationRejected"},
			{Kind: journal.KindValidation, Method: "Emptiness", Reason: "ValidationRejected", DryRun: true},
		}, map[string]float64{"consolidation_type=single": 1, "consolidation_type=empty": 1}},
		// A command abandoned on its way counts as a queue failure, not as a decision.
		{"queue failures", "karpenter_voluntary_disruption_queue_failures_total", []journal.Entry{
			{Kind: journal.KindDisruption, Method: "Drift", Reason: "Abandoned", NodePool: "web", Replacements: []string{"m5.large"}},
			{Kind: journal.KindDisruption, Method: "MultiNodeConsolidation", Reason: "Abandoned", NodePool: "web"},
		}, map[string]float64{"consolidation_type=,decision=replace,reason=drifted": 1, "consolidation_type=multi,decision=delete,reason=underutilized": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := counted(t, tc.family, tc.entries...)
			if len(got) != len(tc.want) {
				t.Errorf("%s = %v, want %v", tc.family, got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s{%s} = %v, want %v", tc.family, k, got[k], v)
				}
			}
		})
	}
}

// TestDurationsAsKarpenterObservesThem: the duration histograms observe what entries measured,
// by Karpenter's labels, and nothing for entries that measured nothing.
func TestDurationsAsKarpenterObservesThem(t *testing.T) {
	terminated := journal.Entry{Kind: journal.KindTermination, Reason: "Terminated", NodePool: "web", Nodes: []string{"n"},
		Took: 90 * time.Second, Lived: 3 * time.Hour, InstanceTook: 40 * time.Second}
	for _, tc := range []struct {
		family  string
		entries []journal.Entry
		labels  string
		count   uint64
		sum     float64
	}{
		{"karpenter_scheduler_scheduling_duration_seconds", []journal.Entry{
			{Kind: journal.KindProvisioning, Reason: "PodsPending", Took: 250 * time.Millisecond},
			{Kind: journal.KindProvisioning, Reason: "PodsPending", Took: 750 * time.Millisecond},
		}, "controller=provisioner", 2, 1},
		{"karpenter_nodeclaims_termination_duration_seconds", []journal.Entry{terminated}, "nodepool=web", 1, 90},
		{"karpenter_nodes_lifetime_duration_seconds", []journal.Entry{terminated, {Kind: journal.KindTermination, Reason: "Terminated", NodePool: "web"}},
			"nodepool=web", 1, 3 * 3600},
		{"karpenter_nodeclaims_instance_termination_duration_seconds", []journal.Entry{terminated}, "nodepool=web", 1, 40},
		// The queue's own errors are no messages.
		{"karpenter_interruption_message_queue_duration_seconds", []journal.Entry{
			{Kind: journal.KindInterruption, MessageType: "spot_interrupted", Took: 3 * time.Second},
			{Kind: journal.KindInterruption, Reason: "Error", Took: time.Minute},
		}, "", 1, 3},
		// A NodeClaim without a node terminates no node.
		{"karpenter_nodes_termination_duration_seconds", []journal.Entry{terminated, {Kind: journal.KindTermination, Reason: "Terminated", NodePool: "web", Took: time.Minute}},
			"nodepool=web", 1, 90},
	} {
		t.Run(tc.family, func(t *testing.T) {
			s := NewSink(prometheus.NewRegistry())
			for _, e := range tc.entries {
				s.Observe(e)
			}
			ms := series(t, s, tc.family)
			if len(ms) != 1 {
				t.Fatalf("%d series of %s, want 1", len(ms), tc.family)
			}
			m := ms[0]
			count, sum := m.GetHistogram().GetSampleCount()+m.GetSummary().GetSampleCount(), m.GetHistogram().GetSampleSum()+m.GetSummary().GetSampleSum()
			if got := labelString(m.GetLabel()); got != tc.labels || count != tc.count || sum != tc.sum {
				t.Errorf("{%s} count %d sum %v, want {%s} %d %v", got, count, sum, tc.labels, tc.count, tc.sum)
			}
		})
	}
}

// TestMeasuresAsKarpenterDoes: the figures the loops measure land in Karpenter's families, with
// Karpenter's label values; a gauge keeps the latest figure, a counter counts, a histogram
// observes (value: its sum).
func TestMeasuresAsKarpenterDoes(t *testing.T) {
	for _, tc := range []struct {
		family   string
		measures []journal.Measurement
		want     map[string]float64
	}{
		{"karpenter_pods_scheduling_decision_duration_seconds", []journal.Measurement{
			{Measure: journal.MeasureSchedulingDecision, Value: 2}, {Measure: journal.MeasureSchedulingDecision, Value: 3},
		}, map[string]float64{"": 5}},
		{"karpenter_scheduler_unschedulable_pods_count", []journal.Measurement{
			{Measure: journal.MeasureUnschedulablePods, Controller: "provisioner", Value: 4},
			{Measure: journal.MeasureUnschedulablePods, Controller: "provisioner", Value: 1},
		}, map[string]float64{"controller=provisioner": 1}},
		{"karpenter_scheduler_ignored_pods_count", []journal.Measurement{
			{Measure: journal.MeasureIgnoredPods, Value: 3}, {Measure: journal.MeasureIgnoredPods, Value: 1},
		}, map[string]float64{"": 1}},
		// Multi- and single-node consolidation share Karpenter's reason, underutilized.
		{"karpenter_voluntary_disruption_eligible_nodes", []journal.Measurement{
			{Measure: journal.MeasureEligibleNodes, Method: "Emptiness", Value: 3},
			{Measure: journal.MeasureEligibleNodes, Method: "Drift", Value: 0},
			{Measure: journal.MeasureEligibleNodes, Method: "SingleNodeConsolidation", Value: 7},
		}, map[string]float64{"reason=empty": 3, "reason=drifted": 0, "reason=underutilized": 7}},
		{"karpenter_voluntary_disruption_decision_evaluation_duration_seconds", []journal.Measurement{
			{Measure: journal.MeasureEvaluation, Method: "MultiNodeConsolidation", Value: 0.5},
			{Measure: journal.MeasureEvaluation, Method: "MultiNodeConsolidation", Value: 0.25},
			{Measure: journal.MeasureEvaluation, Method: "Drift", Value: 0.125},
		}, map[string]float64{"consolidation_type=multi,reason=underutilized": 0.75, "consolidation_type=,reason=drifted": 0.125}},
		{"karpenter_consolidation_moves_total", []journal.Measurement{
			{Measure: journal.MeasureConsolidationMove, NodePool: "web", Policy: "Balanced", Decision: "approved"},
			{Measure: journal.MeasureConsolidationMove, NodePool: "web", Policy: "Balanced", Decision: "rejected"},
			{Measure: journal.MeasureConsolidationMove, NodePool: "batch", Policy: "WhenEmptyOrUnderutilized", Decision: "approved"},
		}, map[string]float64{"decision=approved,nodepool=web,policy=Balanced": 1, "decision=rejected,nodepool=web,policy=Balanced": 1,
			"decision=approved,nodepool=batch,policy=WhenEmptyOrUnderutilized": 1}},
		{"karpenter_cloudprovider_instance_launch_failures_total", []journal.Measurement{
			{Measure: journal.MeasureLaunchFailure, Zone: "us-east-1a", ZoneID: "use1-az1", CapacityType: "spot", Reason: "LaunchFailed"},
			{Measure: journal.MeasureLaunchFailure, Zone: "us-east-1a", ZoneID: "use1-az1", CapacityType: "spot", Reason: "LaunchFailed"},
		}, map[string]float64{"capacity_type=spot,reason=LaunchFailed,zone=us-east-1a,zone_id=use1-az1": 2}},
		{"karpenter_cloudprovider_instance_termination_failures_total", []journal.Measurement{
			{Measure: journal.MeasureTerminationFailure, Zone: "us-east-1b", ZoneID: "use1-az2"},
		}, map[string]float64{"zone=us-east-1b,zone_id=use1-az2": 1}},
		// A deleted node class's size goes with it.
		{"karpenter_ec2nodeclasses_userdata_bytes", []journal.Measurement{
			{Measure: journal.MeasureUserDataBytes, NodeClass: "default", Value: 900},
			{Measure: journal.MeasureUserDataBytes, NodeClass: "gpu", Value: 1200},
			{Measure: journal.MeasureUserDataBytes, NodeClass: "default", Value: 1000},
			{Measure: journal.MeasureNodeClassGone, NodeClass: "gpu"},
		}, map[string]float64{"nodeclass=default": 1000}},
		// A running solve's queue and time are there while it runs, and gone once it is done.
		{"karpenter_scheduler_queue_depth", []journal.Measurement{
			{Measure: journal.MeasureSolveQueue, Controller: "provisioner", SchedulingID: "1", Value: 40},
			{Measure: journal.MeasureSolveQueue, Controller: "provisioner", SchedulingID: "2", Value: 7},
			{Measure: journal.MeasureSolveDone, Controller: "provisioner", SchedulingID: "1"},
		}, map[string]float64{"controller=provisioner,scheduling_id=2": 7}},
		{"karpenter_scheduler_unfinished_work_seconds", []journal.Measurement{
			{Measure: journal.MeasureSolveRunning, Controller: "provisioner", SchedulingID: "1", Value: 0.5},
			{Measure: journal.MeasureSolveRunning, Controller: "provisioner", SchedulingID: "2", Value: 2},
			{Measure: journal.MeasureSolveDone, Controller: "provisioner", SchedulingID: "2"},
		}, map[string]float64{"controller=provisioner,scheduling_id=1": 0.5}},
		{"karpenter_cloudprovider_batcher_batch_size", []journal.Measurement{
			{Measure: journal.MeasureBatchSize, Batcher: "terminate_instances", Value: 4},
		}, map[string]float64{"batcher=terminate_instances": 4}},
		{"karpenter_cloudprovider_batcher_batch_time_seconds", []journal.Measurement{
			{Measure: journal.MeasureBatchTime, Batcher: "terminate_instances", Value: 0.125},
		}, map[string]float64{"batcher=terminate_instances": 0.125}},
		{"karpenter_consolidation_score", []journal.Measurement{
			{Measure: journal.MeasureConsolidationScore, NodePool: "web", Policy: "Balanced", Decision: "approved", Value: 0.75},
		}, map[string]float64{"decision=approved,nodepool=web,policy=Balanced": 0.75}},
	} {
		t.Run(tc.family, func(t *testing.T) {
			s := NewSink(prometheus.NewRegistry())
			for _, m := range tc.measures {
				s.Measure(m)
			}
			got := map[string]float64{}
			for _, m := range series(t, s, tc.family) {
				got[labelString(m.GetLabel())] = m.GetGauge().GetValue() + m.GetCounter().GetValue() + m.GetHistogram().GetSampleSum()
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("%s = %v, want %v", tc.family, got, tc.want)
			}
		})
	}
}
