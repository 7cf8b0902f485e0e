package metrics

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// podGauges are Karpenter's per-pod gauges: every pod's state, and how long pods have waited to
// be bound and to start.
type podGauges struct {
	state, unbound, unstarted *prometheus.Desc
}

func newPodGauges() *podGauges {
	return &podGauges{
		state: prometheus.NewDesc("karpenter_pods_state", "A pod's state: where it runs, on what, and its phase (always 1).",
			[]string{"name", "namespace", "owner", "node", "scheduled", "nodepool", "zone", "arch", "capacity_type", "instance_type", "phase", "ready", "managed"}, nil),
		unbound:   prometheus.NewDesc("karpenter_pods_unbound_time_seconds", "How long a pod not bound yet has existed.", []string{"name", "namespace"}, nil),
		unstarted: prometheus.NewDesc("karpenter_pods_unstarted_time_seconds", "How long a pending pod has existed.", []string{"name", "namespace"}, nil),
	}
}

func (g *podGauges) descs() []*prometheus.Desc {
	return []*prometheus.Desc{g.state, g.unbound, g.unstarted}
}

// collect sends the gauges of every pod in the snapshot, labelled from its node as Karpenter does.
func (g *podGauges) collect(ch chan<- prometheus.Metric, snap *state.Snapshot, now time.Time) {
	nodes := map[string]map[string]string{}
	for _, sn := range snap.Nodes {
		if sn.Node != nil {
			nodes[sn.Node.Name] = sn.Node.Labels
		}
	}
	for _, p := range snap.Pods {
		node := nodes[p.Spec.NodeName] // nil when unbound or its node is gone: empty labels
		ch <- prometheus.MustNewConstMetric(g.state, prometheus.GaugeValue, 1, p.Name, p.Namespace, ownerLink(p), p.Spec.NodeName,
			strconv.FormatBool(p.Spec.NodeName != ""), node[karpv1.NodePoolLabelKey], node[corev1.LabelTopologyZone], node[corev1.LabelArchStable],
			node[karpv1.CapacityTypeLabelKey], node[corev1.LabelInstanceTypeStable], string(p.Status.Phase),
			strconv.FormatBool(podCondition(p, corev1.PodReady)), strconv.FormatBool(node[karpv1.NodePoolLabelKey] != ""))
		age := now.Sub(p.CreationTimestamp.Time).Seconds()
		if !podCondition(p, corev1.PodScheduled) {
			ch <- prometheus.MustNewConstMetric(g.unbound, prometheus.GaugeValue, age, p.Name, p.Namespace)
		}
		if p.Status.Phase == corev1.PodPending {
			ch <- prometheus.MustNewConstMetric(g.unstarted, prometheus.GaugeValue, age, p.Name, p.Namespace)
		}
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

func podCondition(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
