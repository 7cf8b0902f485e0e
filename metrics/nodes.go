package metrics

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
)

// nodeGauges are Karpenter's per-node gauges (CPU in cores, the rest in units), labelled as Karpenter labels them: the node's
// name, phase and whether a NodeClaim manages it, and one label per well-known label (its key
// after the "/", snake_cased) holding the node's value.
type nodeGauges struct {
	labelKeys []string // the well-known label keys, in the order of names
	names     []string // their metric label names

	allocatable, podRequests, podLimits, daemonRequests, daemonLimits, overhead, lifetime, utilization *prometheus.Desc
}

func newNodeGauges(wellKnown []string) *nodeGauges {
	byName := map[string]string{}
	for _, key := range wellKnown {
		if _, name, ok := strings.Cut(key, "/"); ok {
			byName[strings.ReplaceAll(strings.ToLower(name), "-", "_")] = key
		}
	}
	g := &nodeGauges{}
	for name := range byName {
		g.names = append(g.names, name)
	}
	sort.Strings(g.names)
	for _, name := range g.names {
		g.labelKeys = append(g.labelKeys, byName[name])
	}
	labels := append([]string{"node_name", "phase", "managed"}, g.names...)
	withType := append(append([]string(nil), labels...), "resource_type")
	desc := func(name, help string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc("karpenter_nodes_"+name, help, labels, nil)
	}
	g.allocatable = desc("allocatable", "What a node can hold, by resource.", withType)
	g.podRequests = desc("total_pod_requests", "What a node's pods other than DaemonSets' request, by resource.", withType)
	g.podLimits = desc("total_pod_limits", "What a node's pods other than DaemonSets' are limited to, by resource.", withType)
	g.daemonRequests = desc("total_daemon_requests", "What a node's DaemonSet pods request, by resource.", withType)
	g.daemonLimits = desc("total_daemon_limits", "What a node's DaemonSet pods are limited to, by resource.", withType)
	g.overhead = desc("system_overhead", "What a node's capacity loses to the system (capacity less allocatable), by resource.", withType)
	g.lifetime = desc("current_lifetime_seconds", "How long ago a node was created.", labels)
	g.utilization = prometheus.NewDesc("karpenter_cluster_utilization_percent", "What the nodes' pods request, in percent of what the nodes can hold, by resource.", []string{"resource_type"}, nil)
	return g
}

func (g *nodeGauges) descs() []*prometheus.Desc {
	return []*prometheus.Desc{g.allocatable, g.podRequests, g.podLimits, g.daemonRequests, g.daemonLimits, g.overhead, g.lifetime, g.utilization}
}

// collect sends the gauges of every registered node, and the cluster's utilization.
func (g *nodeGauges) collect(ch chan<- prometheus.Metric, snap *state.Snapshot, now time.Time) {
	allocatable, requested := corev1.ResourceList{}, corev1.ResourceList{}
	for _, sn := range snap.Nodes {
		if sn.Node == nil {
			continue
		}
		n := sn.Node
		labels := []string{n.Name, string(n.Status.Phase), strconv.FormatBool(sn.Managed())}
		for _, key := range g.labelKeys {
			labels = append(labels, n.Labels[key])
		}
		podReqs, podLims, dsReqs, dsLims := corev1.ResourceList{}, corev1.ResourceList{}, corev1.ResourceList{}, corev1.ResourceList{}
		for _, p := range sn.Pods {
			reqs, lims := podReqs, podLims
			if pods.IsOwnedByDaemonSet(p) {
				reqs, lims = dsReqs, dsLims
			}
			add(reqs, pods.Requests(p))
			add(lims, resourcehelper.PodLimits(p, resourcehelper.PodResourcesOptions{}))
		}
		overhead := corev1.ResourceList{}
		for name, c := range n.Status.Capacity {
			left := c.DeepCopy()
			if a, ok := n.Status.Allocatable[name]; ok {
				left.Sub(a)
			}
			overhead[name] = left
		}
		for desc, list := range map[*prometheus.Desc]corev1.ResourceList{
			g.allocatable: n.Status.Allocatable, g.podRequests: podReqs, g.podLimits: podLims,
			g.daemonRequests: dsReqs, g.daemonLimits: dsLims, g.overhead: overhead,
		} {
			for name, q := range list {
				ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, q.AsApproximateFloat64(), append(labels, resourceType(name))...)
			}
		}
		ch <- prometheus.MustNewConstMetric(g.lifetime, prometheus.GaugeValue, now.Sub(n.CreationTimestamp.Time).Seconds(), labels...)
		add(allocatable, n.Status.Allocatable)
		add(requested, podReqs)
		add(requested, dsReqs)
	}
	for name, a := range allocatable {
		if total := a.AsApproximateFloat64(); total > 0 {
			used := requested[name]
			ch <- prometheus.MustNewConstMetric(g.utilization, prometheus.GaugeValue, 100*used.AsApproximateFloat64()/total, resourceType(name))
		}
	}
}

// resourceType is a resource's name as a label value: lower case, "-" as "_".
func resourceType(name corev1.ResourceName) string {
	return strings.ReplaceAll(strings.ToLower(string(name)), "-", "_")
}

// add adds b into a.
func add(a, b corev1.ResourceList) {
	for name, q := range b {
		sum := a[name]
		sum.Add(q)
		a[name] = sum
	}
}
