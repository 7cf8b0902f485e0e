package metrics

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// gauges scrapes a collector and returns a family's gauges by their labels ("name=value,..." for
// the labels named in keep, in that order).
func gauges(t *testing.T, c *Collector, family string, keep ...string) map[string]float64 {
	t.Helper()
	got := map[string]float64{}
	for _, m := range series(t, c, family) {
		var labels []string
		for _, k := range keep {
			for _, l := range m.GetLabel() {
				if l.GetName() == k {
					labels = append(labels, k+"="+l.GetValue())
				}
			}
		}
		got[strings.Join(labels, ",")] = m.GetGauge().GetValue()
	}
	return got
}

// TestClusterGauges: the pod, sync and build gauges Karpenter exports, from the cluster state.
func TestClusterGauges(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	cluster := state.NewCluster(clk)
	cluster.UpdateNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{karpv1.NodePoolLabelKey: "web",
		corev1.LabelTopologyZone: "us-east-1a", karpv1.CapacityTypeLabelKey: "spot", corev1.LabelInstanceTypeStable: "m5.large", corev1.LabelArchStable: "amd64"}}})
	created := metav1.NewTime(start.Add(-time.Minute))
	owner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1"}}
	cluster.UpdatePod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "running", CreationTimestamp: created, OwnerReferences: owner},
		Spec: corev1.PodSpec{NodeName: "n1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}}})
	cluster.UpdatePod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "waiting", CreationTimestamp: created},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}}})
	cluster.UpdateNodePool(&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "web"}})
	cluster.UpdateNodePool(&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "batch"}})
	m5 := &cloudprovider.InstanceType{Name: "m5.large", Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")},
		Offerings: cloudprovider.Offerings{{Zone: "us-east-1a", CapacityType: "spot", Price: 0.03, Available: true}, {Zone: "us-east-1a", CapacityType: "on-demand", Price: 0.096}}}
	offered := func(string) []*cloudprovider.InstanceType { return []*cloudprovider.InstanceType{m5} } // both NodePools offer it
	c := NewCollector(cluster, offered, clk, nil)

	for _, tc := range []struct {
		family string
		keep   []string
		want   map[string]float64
	}{
		{"karpenter_pods_state", []string{"name", "owner", "node", "scheduled", "nodepool", "zone", "capacity_type", "instance_type", "phase", "ready", "managed"},
			map[string]float64{
				"name=running,owner=/apis/apps/v1/namespaces/default/replicasets/web-1,node=n1,scheduled=true,nodepool=web,zone=us-east-1a,capacity_type=spot,instance_type=m5.large,phase=Running,ready=true,managed=true": 1,
				"name=waiting,owner=,node=,scheduled=false,nodepool=,zone=,capacity_type=,instance_type=,phase=Pending,ready=false,managed=false":                                                                           1,
			}},
		{"karpenter_pods_unbound_time_seconds", []string{"name"}, map[string]float64{"name=waiting": 60}},
		{"karpenter_pods_unstarted_time_seconds", []string{"name"}, map[string]float64{"name=waiting": 60}},
		{"karpenter_cluster_state_synced", nil, map[string]float64{"": 0}},
		{"karpenter_cloudprovider_instance_type_cpu_cores", []string{"instance_type"}, map[string]float64{"instance_type=m5.large": 2}},
		{"karpenter_cloudprovider_instance_type_memory_bytes", []string{"instance_type"}, map[string]float64{"instance_type=m5.large": 8 << 30}},
		{"karpenter_cloudprovider_instance_type_offering_available", []string{"capacity_type"}, map[string]float64{"capacity_type=spot": 1, "capacity_type=on-demand": 0}},
		{"karpenter_cloudprovider_instance_type_offering_price_estimate", []string{"capacity_type", "zone"},
			map[string]float64{"capacity_type=spot,zone=us-east-1a": 0.03, "capacity_type=on-demand,zone=us-east-1a": 0.096}},
		// The node is priced from the offered types: a spot m5.large in us-east-1a.
		{"karpenter_nodepools_cost_total", []string{"nodepool"}, map[string]float64{"nodepool=web": 0.03}},
		{"karpenter_build_info", nil, map[string]float64{"": 1}},
	} {
		t.Run(tc.family, func(t *testing.T) {
			got := gauges(t, c, tc.family, tc.keep...)
			if len(got) != len(tc.want) {
				t.Fatalf("%s = %v, want %v", tc.family, got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s{%s} = %v, want %v", tc.family, k, got[k], v)
				}
			}
		})
	}

	// Unsynced time grows from the first scrape that finds the state unsynced, and is 0 once synced.
	clk.Step(30 * time.Second)
	if got := gauges(t, c, "karpenter_cluster_state_unsynced_time_seconds")[""]; got != 30 {
		t.Errorf("unsynced for %vs, want 30s", got)
	}
	for _, k := range state.Kinds() {
		cluster.MarkSynced(k)
	}
	if got := gauges(t, c, "karpenter_cluster_state_unsynced_time_seconds")[""]; got != 0 {
		t.Errorf("unsynced for %vs once synced, want 0", got)
	}
	if got := gauges(t, c, "karpenter_cluster_state_synced")[""]; got != 1 {
		t.Errorf("synced = %v, want 1", got)
	}
}

// TestPodLifecycleMetrics follows two pods through a provisioning: how long they wait for a
// decision, to be bound and to start, from creation and from the provisioner's placement, and the
// durations observed once a scrape finds them bound and ready.
func TestPodLifecycleMetrics(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(t0)
	cluster := state.NewCluster(clk)
	pending := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, CreationTimestamp: metav1.NewTime(t0)},
			Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}}}
	}
	web, stuck := pending("web"), pending("stuck")
	cluster.UpdatePod(web)
	cluster.UpdatePod(stuck)
	cluster.AckPods([]*corev1.Pod{web, stuck}, t0.Add(10*time.Second))
	if waited := cluster.DecidePods([]*corev1.Pod{web}, nil, t0.Add(12*time.Second)); len(waited) != 1 || waited[0] != 2*time.Second {
		t.Fatalf("first decision waited %v, want [2s]", waited)
	}
	if waited := cluster.DecidePods([]*corev1.Pod{web}, nil, t0.Add(14*time.Second)); len(waited) != 0 {
		t.Fatalf("a second decision measured %v, want nothing", waited)
	}
	c := NewCollector(cluster, nil, clk, nil)

	clk.SetTime(t0.Add(20 * time.Second))
	for family, want := range map[string]map[string]float64{
		"karpenter_pods_unbound_time_seconds":                           {"name=web": 20, "name=stuck": 20},
		"karpenter_pods_unstarted_time_seconds":                         {"name=web": 20, "name=stuck": 20},
		"karpenter_pods_provisioning_unbound_time_seconds":              {"name=web": 8},
		"karpenter_pods_provisioning_unstarted_time_seconds":            {"name=web": 8},
		"karpenter_pods_provisioning_scheduling_undecided_time_seconds": {"name=stuck": 10},
	} {
		if got := gauges(t, c, family, "name"); !maps.Equal(got, want) {
			t.Errorf("%s = %v, want %v", family, got, want)
		}
	}

	// web binds at 40 s and is ready at 70 s; the next scrape observes both, once.
	running := web.DeepCopy()
	running.Spec.NodeName = "n1"
	running.Status.Phase = corev1.PodRunning
	running.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(40 * time.Second))},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(70 * time.Second))}}
	cluster.UpdatePod(running)
	clk.SetTime(t0.Add(80 * time.Second))
	for range 2 {
		for family, want := range map[string][2]float64{
			"karpenter_pods_bound_duration_seconds":                {1, 40},
			"karpenter_pods_provisioning_bound_duration_seconds":   {1, 28},
			"karpenter_pods_startup_duration_seconds":              {1, 70},
			"karpenter_pods_provisioning_startup_duration_seconds": {1, 58},
		} {
			if got := observed(t, c, family); got != want {
				t.Errorf("%s observed (count, sum) %v, want %v", family, got, want)
			}
		}
		if got := gauges(t, c, "karpenter_pods_provisioning_unbound_time_seconds", "name"); len(got) != 0 {
			t.Errorf("bound pods still waiting: %v", got)
		}
	}
}

// observed returns a histogram's or summary's count and sum.
func observed(t *testing.T, c prometheus.Collector, family string) [2]float64 {
	t.Helper()
	for _, m := range series(t, c, family) {
		if h := m.GetHistogram(); h != nil {
			return [2]float64{float64(h.GetSampleCount()), h.GetSampleSum()}
		}
		if s := m.GetSummary(); s != nil {
			return [2]float64{float64(s.GetSampleCount()), s.GetSampleSum()}
		}
	}
	return [2]float64{}
}
