package metrics

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// podGauges are Karpenter's pod metrics: every pod's state; how long pods have waited to be
// bound, to start and for a scheduling decision; and, once they are bound or started, how long
// that took, counted from their creation and from when the provisioner first placed them.
// Karpenter's pod controller observes a pod's transition when it reconciles the pod; nodepilot
// when a scrape finds it, with the times the pod's conditions record, so the figures are the
// same.
type podGauges struct {
	state, unbound, unstarted                             *prometheus.Desc
	provisioningUnbound, provisioningUnstarted, undecided *prometheus.Desc
	bound, provisioningBound, provisioningStartup         prometheus.Histogram
	startup                                               prometheus.Summary
	mu                                                    sync.Mutex
	pending, unscheduled                                  map[types.NamespacedName]bool // seen Pending at a scrape
}

func newPodGauges() *podGauges {
	nameNS := []string{"name", "namespace"}
	histogram := func(name, help string) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: durationBuckets})
	}
	return &podGauges{
		state: prometheus.NewDesc("karpenter_pods_state", "A pod's state: where it runs, on what, and its phase (always 1).",
			[]string{"name", "namespace", "owner", "node", "scheduled", "nodepool", "zone", "arch", "capacity_type", "instance_type", "phase", "ready", "managed"}, nil),
		unbound:   prometheus.NewDesc("karpenter_pods_unbound_time_seconds", "How long a pod not bound yet has existed.", nameNS, nil),
		unstarted: prometheus.NewDesc("karpenter_pods_unstarted_time_seconds", "How long a pod not running and ready yet has existed.", nameNS, nil),
		provisioningUnbound: prometheus.NewDesc("karpenter_pods_provisioning_unbound_time_seconds",
			"How long a pod not bound yet has been placed by the provisioner (from the provisioner's memory).", nameNS, nil),
		provisioningUnstarted: prometheus.NewDesc("karpenter_pods_provisioning_unstarted_time_seconds",
			"How long a pod not running and ready yet has been placed by the provisioner (from the provisioner's memory).", nameNS, nil),
		undecided: prometheus.NewDesc("karpenter_pods_provisioning_scheduling_undecided_time_seconds",
			"How long the provisioner has known a provisionable pod without deciding where it goes.", nameNS, nil),
		bound: histogram("karpenter_pods_bound_duration_seconds", "How long pods took from creation to being bound, in seconds."),
		provisioningBound: histogram("karpenter_pods_provisioning_bound_duration_seconds",
			"How long pods took from the provisioner first placing them to being bound, in seconds."),
		provisioningStartup: histogram("karpenter_pods_provisioning_startup_duration_seconds",
			"How long pods took from the provisioner first placing them to running and ready, in seconds."),
		startup: prometheus.NewSummary(prometheus.SummaryOpts{Name: "karpenter_pods_startup_duration_seconds",
			Help: "How long pods took from creation to running and ready, in seconds.", Objectives: map[float64]float64{0: 0.01, 0.5: 0.01, 0.9: 0.01, 0.99: 0.01, 1: 0.01}}),
		pending: map[types.NamespacedName]bool{}, unscheduled: map[types.NamespacedName]bool{},
	}
}

func (g *podGauges) descs() []*prometheus.Desc {
	return []*prometheus.Desc{g.state, g.unbound, g.unstarted, g.provisioningUnbound, g.provisioningUnstarted, g.undecided,
		g.bound.Desc(), g.provisioningBound.Desc(), g.provisioningStartup.Desc(), g.startup.Desc()}
}

// collect sends the gauges of every pod in the snapshot, labelled from its node as Karpenter does,
// and observes the pods that were bound or started since a scrape saw them Pending.
func (g *podGauges) collect(ch chan<- prometheus.Metric, snap *state.Snapshot, scheduling map[types.NamespacedName]state.PodScheduling, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	nodes := map[string]map[string]string{}
	for _, sn := range snap.Nodes {
		if sn.Node != nil {
			nodes[sn.Node.Name] = sn.Node.Labels
		}
	}
	present := map[types.NamespacedName]bool{}
	for _, p := range snap.Pods {
		key := pods.Key(p)
		present[key] = true
		node := nodes[p.Spec.NodeName] // nil when unbound or its node is gone: empty labels
		_, ready := podCondition(p, corev1.PodReady)
		ch <- prometheus.MustNewConstMetric(g.state, prometheus.GaugeValue, 1, p.Name, p.Namespace, ownerLink(p), p.Spec.NodeName,
			strconv.FormatBool(p.Spec.NodeName != ""), node[karpv1.NodePoolLabelKey], node[corev1.LabelTopologyZone], node[corev1.LabelArchStable],
			node[karpv1.CapacityTypeLabelKey], node[corev1.LabelInstanceTypeStable], string(p.Status.Phase),
			strconv.FormatBool(ready), strconv.FormatBool(node[karpv1.NodePoolLabelKey] != ""))
		s := scheduling[key]
		since := func(d *prometheus.Desc, t time.Time) {
			if !t.IsZero() {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, now.Sub(t).Seconds(), p.Name, p.Namespace)
			}
		}
		scheduledAt, scheduled := podCondition(p, corev1.PodScheduled)
		if !scheduled && s.Decided.IsZero() {
			since(g.undecided, s.Acked)
		}
		g.started(p, s.Placed, since)
		g.bind(p, s.Placed, scheduledAt, scheduled, since)
	}
	gone := func(key types.NamespacedName, _ bool) bool { return !present[key] }
	maps.DeleteFunc(g.pending, gone)
	maps.DeleteFunc(g.unscheduled, gone)
	for _, m := range []prometheus.Collector{g.bound, g.provisioningBound, g.provisioningStartup, g.startup} {
		m.Collect(ch)
	}
}

// started reports how long a pod has waited to start, or observes how long it took.
func (g *podGauges) started(p *corev1.Pod, placed time.Time, since func(*prometheus.Desc, time.Time)) {
	key := pods.Key(p)
	if p.Status.Phase == corev1.PodPending {
		since(g.unstarted, p.CreationTimestamp.Time)
		since(g.provisioningUnstarted, placed)
		g.pending[key] = true
		return
	}
	if !g.pending[key] {
		return
	}
	readyAt, ready := podCondition(p, corev1.PodReady)
	switch {
	case ready:
		g.startup.Observe(readyAt.Sub(p.CreationTimestamp.Time).Seconds())
		if !placed.IsZero() {
			g.provisioningStartup.Observe(readyAt.Sub(placed).Seconds())
		}
		delete(g.pending, key)
	case pods.IsTerminal(p):
		delete(g.pending, key)
	default: // running, not ready yet
		since(g.unstarted, p.CreationTimestamp.Time)
		since(g.provisioningUnstarted, placed)
	}
}

// bind reports how long a pod has waited to be bound, or observes how long it took once it has
// left Pending.
func (g *podGauges) bind(p *corev1.Pod, placed, scheduledAt time.Time, scheduled bool, since func(*prometheus.Desc, time.Time)) {
	key := pods.Key(p)
	if p.Status.Phase == corev1.PodPending {
		if !scheduled {
			since(g.unbound, p.CreationTimestamp.Time)
			since(g.provisioningUnbound, placed)
		}
		g.unscheduled[key] = true
		return
	}
	if g.unscheduled[key] && scheduled {
		g.bound.Observe(scheduledAt.Sub(p.CreationTimestamp.Time).Seconds())
		if !placed.IsZero() {
			g.provisioningBound.Observe(scheduledAt.Sub(placed).Seconds())
		}
		delete(g.unscheduled, key)
	}
}

// ownerLink is the self link of a pod's first owner, as Karpenter labels pods_state.
func ownerLink(p *corev1.Pod) string {
	if len(p.OwnerReferences) == 0 {
		return ""
	}
	o := p.OwnerReferences[0]
	return fmt.Sprintf("/apis/%s/namespaces/%s/%ss/%s", o.APIVersion, p.Namespace, strings.ToLower(o.Kind), o.Name)
}

// podCondition returns when a pod's condition last changed and whether it holds.
func podCondition(p *corev1.Pod, t corev1.PodConditionType) (time.Time, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.LastTransitionTime.Time, c.Status == corev1.ConditionTrue
		}
	}
	return time.Time{}, false
}
