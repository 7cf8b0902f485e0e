package metrics

import (
	"testing"

	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodepilot/nodepilot/engine/journal"
)

// TestDecisionsAsKarpenterCountsThem: a disruption decision counts in Karpenter v1's family, with
// its label values (the reason in lower case, the consolidation type), and a dry run's not at all.
func TestDecisionsAsKarpenterCountsThem(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := NewSink(reg)
	for _, e := range []journal.Entry{
		{Kind: journal.KindDisruption, Method: "Emptiness", Reason: "Empty", Decision: "delete"},
		{Kind: journal.KindDisruption, Method: "SingleNodeConsolidation", Reason: "Underutilized", Decision: "replace"},
		{Kind: journal.KindDisruption, Method: "Drift", Reason: "Drifted", Decision: "replace"},
		{Kind: journal.KindDisruption, Method: "Drift", Reason: "Drifted", Decision: "replace", DryRun: true},
	} {
		s.Observe(e)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "karpenter_voluntary_disruption_decisions_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			got[strings.Join(labels, ",")] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{
		"consolidation_type=empty,decision=delete,reason=empty":           1,
		"consolidation_type=single,decision=replace,reason=underutilized": 1,
		"consolidation_type=,decision=replace,reason=drifted":             1,
	}
	if len(got) != len(want) {
		t.Errorf("karpenter_voluntary_disruption_decisions_total = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// TestInterruptionsAsKarpenterCountsThem: received interruption messages count by Karpenter's
// message types; the queue's own errors do not.
func TestInterruptionsAsKarpenterCountsThem(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := NewSink(reg)
	for _, e := range []journal.Entry{
		{Kind: journal.KindInterruption, Reason: "SpotInterruption", MessageType: "spot_interrupted"},
		{Kind: journal.KindInterruption, Reason: "SpotInterruption", MessageType: "spot_interrupted"},
		{Kind: journal.KindInterruption, Reason: "StateChange", MessageType: "instance_stopped"},
		{Kind: journal.KindInterruption, Reason: "Error", Message: "interruption queue: access denied"},
	} {
		s.Observe(e)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() == "karpenter_interruption_received_messages_total" {
			for _, m := range f.GetMetric() {
				got[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if len(got) != 2 || got["spot_interrupted"] != 2 || got["instance_stopped"] != 1 {
		t.Errorf("karpenter_interruption_received_messages_total = %v, want spot_interrupted 2, instance_stopped 1", got)
	}
}
