package autoscaler_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/metrics"
)

// TestNodePoolStatus: the lifecycle loop writes each NodePool's status as Karpenter's controllers
// do (nodes, the sum of their capacity, and the conditions kubectl get nodepools shows).
func TestNodePoolStatus(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default")
	h.NodePool("orphan", func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.NodeClassRef.Name = "missing"
	})
	h.Deployment("web", 3, enginetest.Resources("1", "1Gi"))
	h.Advance(time.Minute, time.Second)

	for _, tc := range []struct {
		pool        string
		wantNodes   bool // at least one node, and capacity summed over them
		wantReady   metav1.ConditionStatus
		wantMessage string // in Ready's message
	}{
		{pool: "default", wantNodes: true, wantReady: metav1.ConditionTrue},
		{pool: "orphan", wantReady: metav1.ConditionFalse, wantMessage: "EC2NodeClass missing not found"},
	} {
		np, err := h.API.NodePool(tc.pool)
		if err != nil {
			t.Fatal(err)
		}
		var nodes int64
		cpu := int64(0)
		for _, sn := range h.managedNodes() {
			if sn.NodePool() == tc.pool {
				nodes++
				capacity := sn.Capacity()
				cpu += capacity.Cpu().MilliValue()
			}
		}
		if np.Status.Nodes == nil || *np.Status.Nodes != nodes || (tc.wantNodes && nodes == 0) {
			t.Errorf("%s: status.nodes %v, want %d (at least one: %v)", tc.pool, np.Status.Nodes, nodes, tc.wantNodes)
		}
		if got := np.Status.Resources.Cpu().MilliValue(); got != cpu {
			t.Errorf("%s: status.resources.cpu %dm, want %dm", tc.pool, got, cpu)
		}
		ready := meta.FindStatusCondition(np.Status.Conditions, karpv1.ConditionTypeReady)
		if ready == nil || ready.Status != tc.wantReady || !strings.Contains(ready.Message, tc.wantMessage) || ready.ObservedGeneration != np.Generation {
			t.Errorf("%s: Ready condition %+v, want %s with %q", tc.pool, ready, tc.wantReady, tc.wantMessage)
		}
		// karpenter_nodepools_usage reports the same sum.
		if got := usageMetric(t, h, tc.pool, "cpu"); got != float64(cpu)/1000 {
			t.Errorf("%s: karpenter_nodepools_usage{resource_type=cpu} = %g, want %g", tc.pool, got, float64(cpu)/1000)
		}
		// As Karpenter's hash controller, the NodePool carries its hash and the scheme's version.
		if np.Annotations[karpv1.NodePoolHashAnnotationKey] != karpv1.Hash(np) || np.Annotations[karpv1.NodePoolHashVersionAnnotationKey] != karpv1.NodePoolHashVersion {
			t.Errorf("%s: annotations %v, want hash %s version %s", tc.pool, np.Annotations, karpv1.Hash(np), karpv1.NodePoolHashVersion)
		}
		for _, c := range []string{karpv1.ConditionTypeValidationSucceeded, karpv1.ConditionTypeNodeClassReady} {
			if meta.FindStatusCondition(np.Status.Conditions, c) == nil {
				t.Errorf("%s: no %s condition", tc.pool, c)
			}
		}
	}
}

// usageMetric reads karpenter_nodepools_usage for a NodePool and resource (0 when absent).
func usageMetric(t *testing.T, h *harness, pool, resource string) float64 {
	t.Helper()
	sum, _ := gauges(t, h, "karpenter_nodepools_usage", map[string]string{"nodepool": pool, "resource_type": resource})
	return sum
}

// gauges sums a gauge family's series whose labels include want, and counts them.
func gauges(t *testing.T, h *harness, family string, want map[string]string) (float64, int) {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(h.Cluster, func(string) []*cloudprovider.InstanceType { return nil }, h.Clock, karpv1.WellKnownLabels().UnsortedList()))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum, n := 0.0, 0
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			sum, n = sum+m.GetGauge().GetValue(), n+1
		}
	}
	return sum, n
}

// TestNodeGauges: Karpenter's per-node gauges and the cluster's, from the same state the
// autoscaler decides on.
func TestNodeGauges(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default")
	h.Deployment("web", 3, enginetest.Resources("1", "1Gi"))
	h.Advance(time.Minute, time.Second)
	nodes := h.managedNodes()
	if len(nodes) == 0 {
		t.Fatal("no nodes")
	}
	allocatable := 0.0
	for _, sn := range nodes {
		allocatable += sn.Node.Status.Allocatable.Cpu().AsApproximateFloat64()
	}
	for _, tc := range []struct {
		family     string
		labels     map[string]string
		want       float64
		wantSeries int
	}{
		{"karpenter_nodes_allocatable", map[string]string{"resource_type": "cpu", "managed": "true", "nodepool": "default"}, allocatable, len(nodes)},
		{"karpenter_nodes_total_pod_requests", map[string]string{"resource_type": "cpu", "nodepool": "default"}, 3, len(nodes)},
		{"karpenter_nodes_total_pod_requests", map[string]string{"resource_type": "memory"}, 3 * 1024 * 1024 * 1024, len(nodes)},
		{"karpenter_cluster_state_node_count", nil, float64(len(nodes)), 1},
		{"karpenter_nodepools_allowed_disruptions", map[string]string{"nodepool": "default", "reason": "Underutilized"}, 1, 1},
		{"karpenter_nodepools_nodes_consuming_budgets", map[string]string{"nodepool": "default", "reason": "Drifted"}, 0, 1},
	} {
		got, series := gauges(t, h, tc.family, tc.labels)
		if got != tc.want || series != tc.wantSeries {
			t.Errorf("%s%v = %g over %d series, want %g over %d", tc.family, tc.labels, got, series, tc.want, tc.wantSeries)
		}
	}
	if got, _ := gauges(t, h, "karpenter_cluster_utilization_percent", map[string]string{"resource_type": "cpu"}); got != 100*3/allocatable {
		t.Errorf("cluster cpu utilization %g%%, want %g%%", got, 100*3/allocatable)
	}
}
