package rightsizing

import (
	"context"
	"fmt"
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/usage"
)

const mi = 1 << 20

// types are m-2, m-4 and m-8: n vCPUs, 4n GiB, $0.05 per vCPU an hour, one zone, no overhead.
func types() []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, n := range []int64{2, 4, 8} {
		name := fmt.Sprintf("m-%d", n)
		offerings := cloudprovider.Offerings{{Zone: "zone-a", CapacityType: karpv1.CapacityTypeOnDemand, Price: 0.05 * float64(n), Available: true}}
		out = append(out, &cloudprovider.InstanceType{
			Name: name,
			Requirements: requirements.FromLabels(map[string]string{
				corev1.LabelInstanceTypeStable: name, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux",
				corev1.LabelTopologyZone: "zone-a", karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand,
			}),
			Offerings: offerings,
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewQuantity(n, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(4*n<<30, resource.BinarySI),
				corev1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
			},
		})
	}
	return out
}

// pod is a pending pod of one container "app" owned by kind/owner, requesting cpu and memory.
func pod(name, kind, owner, cpu, memory string, labels map[string]string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}}}},
	}
	if kind != "" {
		controller := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: owner, Controller: &controller}}
	}
	return p
}

func TestWorkloadOf(t *testing.T) {
	hash := map[string]string{"pod-template-hash": "7d9f8"}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want Key
	}{
		{"a Deployment's ReplicaSet", pod("web-7d9f8-x1", "ReplicaSet", "web-7d9f8", "1", "1Gi", hash), Key{"Deployment", "shop", "web"}},
		{"a ReplicaSet of its own", pod("rs-x1", "ReplicaSet", "rs", "1", "1Gi", nil), Key{"ReplicaSet", "shop", "rs"}},
		{"a StatefulSet", pod("db-0", "StatefulSet", "db", "1", "1Gi", nil), Key{"StatefulSet", "shop", "db"}},
		{"a bare pod", pod("debug", "", "", "1", "1Gi", nil), Key{"Pod", "shop", "debug"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := WorkloadOf(tc.pod); got != tc.want {
				t.Errorf("WorkloadOf = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSize(t *testing.T) {
	p := DefaultPolicy()
	for _, tc := range []struct {
		name             string
		req, used, limit usage.Use
		want             usage.Use
	}{
		{"headroom over use, memory in whole MiB", usage.Use{CPU: 1500, Mem: 1 << 30}, usage.Use{CPU: 400, Mem: 300 * mi}, usage.Use{}, usage.Use{CPU: 460, Mem: 345 * mi}},
		{"never under the floor", usage.Use{CPU: 500, Mem: 512 * mi}, usage.Use{CPU: 1, Mem: 1}, usage.Use{}, usage.Use{CPU: 10, Mem: 32 * mi}},
		{"never over the limit", usage.Use{CPU: 500, Mem: 512 * mi}, usage.Use{CPU: 900, Mem: 600 * mi}, usage.Use{CPU: 1000, Mem: 640 * mi}, usage.Use{CPU: 1000, Mem: 640 * mi}},
		{"up when use exceeds the request", usage.Use{CPU: 500, Mem: 512 * mi}, usage.Use{CPU: 500, Mem: 512 * mi}, usage.Use{}, usage.Use{CPU: 575, Mem: 589 * mi}},
		{"a resource not requested stays so", usage.Use{CPU: 0, Mem: 512 * mi}, usage.Use{CPU: 300, Mem: 100 * mi}, usage.Use{}, usage.Use{CPU: 0, Mem: 115 * mi}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.size(tc.req, tc.used, tc.limit); got != tc.want {
				t.Errorf("size = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestHandComputed right-sizes three workloads over m-2, m-4 and m-8 ($0.05 per vCPU):
//   - web, 4 pods of 1500m/1Gi using at most 400m/300Mi: suggested 460m/345Mi;
//   - api, 2 pods of 500m/512Mi using 500m/512Mi: suggested more, 575m/589Mi;
//   - debug, a bare pod with 3 readings: no suggestion yet.
//
// As requested the pods ask 7.5 CPUs: one m-8, $0.40. Right-sized they ask 4×460m + 2×575m +
// 500m = 3.49 CPUs: one m-4, $0.20. web alone right-sized asks 1.84 + 1 + 0.5 = 3.34: an m-4,
// saving $0.20; api alone asks 6 + 1.15 + 0.5 = 7.65: still an m-8, saving nothing.
func TestHandComputed(t *testing.T) {
	hash := map[string]string{"pod-template-hash": "abc12"}
	var ps []*corev1.Pod
	for i := range 4 {
		ps = append(ps, pod(fmt.Sprintf("web-abc12-%d", i), "ReplicaSet", "web-abc12", "1500m", "1Gi", hash))
	}
	ps = append(ps, pod("api-0", "StatefulSet", "api", "500m", "512Mi", nil), pod("api-1", "StatefulSet", "api", "500m", "512Mi", nil),
		pod("debug", "", "", "500m", "256Mi", nil), pod("logs-x", "DaemonSet", "logs", "100m", "64Mi", nil), pod("fresh", "", "", "1", "1Gi", nil))
	stats := map[string]usage.Stats{
		"Deployment shop/web":  {Samples: 40, CPU: 400, Mem: 300 * mi},
		"StatefulSet shop/api": {Samples: 20, CPU: 500, Mem: 512 * mi},
		"Pod shop/debug":       {Samples: 3, CPU: 10, Mem: 10 * mi},
	}
	ws := Suggest(ps, func(w Key, _ []*corev1.Pod, container string) usage.Stats {
		if container != "app" {
			t.Fatalf("stats asked for container %q", container)
		}
		return stats[w.String()]
	}, DefaultPolicy())

	type row struct {
		key               string
		pods              int
		suggested, excess usage.Use
		why               string
	}
	want := []row{
		{"Pod shop/debug", 1, usage.Use{CPU: 500, Mem: 256 * mi}, usage.Use{}, "collecting usage: 3 of 10 readings"},
		{"Pod shop/fresh", 1, usage.Use{CPU: 1000, Mem: 1 << 30}, usage.Use{}, "no usage read: none of its pods has run in the window"},
		{"StatefulSet shop/api", 2, usage.Use{CPU: 575, Mem: 589 * mi}, usage.Use{CPU: -150, Mem: -154 * mi}, ""},
		{"Deployment shop/web", 4, usage.Use{CPU: 460, Mem: 345 * mi}, usage.Use{CPU: 4160, Mem: 4 * (1024 - 345) * mi}, ""},
	}
	if len(ws) != len(want) {
		t.Fatalf("%d workloads, want %d (the DaemonSet's pod left out): %+v", len(ws), len(want), ws)
	}
	byKey := map[string]*Workload{}
	for i := range ws {
		byKey[ws[i].Key.String()] = &ws[i]
	}
	for _, wr := range want {
		w := byKey[wr.key]
		if w == nil {
			t.Fatalf("no workload %s", wr.key)
		}
		if len(w.Pods) != wr.pods || w.Suggested() != wr.suggested || w.Excess() != wr.excess || w.Why != wr.why {
			t.Errorf("%s: %d pods, suggested %+v, excess %+v, why %q; want %d, %+v, %+v, %q",
				wr.key, len(w.Pods), w.Suggested(), w.Excess(), w.Why, wr.pods, wr.suggested, wr.excess, wr.why)
		}
	}

	in := &scheduling.Input{Pods: ps[:7], Options: scheduling.DefaultOptions(), NodePools: []scheduling.NodePool{{
		Name: "default", InstanceTypes: types(),
		Requirements: requirements.Of(requirements.New(karpv1.NodePoolLabelKey, corev1.NodeSelectorOpIn, "default")),
	}}}
	r := Simulate(context.Background(), in, ws)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(r.Before, 0.40) || !near(r.After, 0.20) || r.NodesBefore != 1 || r.NodesAfter != 1 || r.UnschedulableBefore+r.UnschedulableAfter != 0 {
		t.Errorf("fleet $%.2f/h on %d nodes → $%.2f/h on %d nodes (%d, %d unschedulable); want $0.40 on 1 → $0.20 on 1, none",
			r.Before, r.NodesBefore, r.After, r.NodesAfter, r.UnschedulableBefore, r.UnschedulableAfter)
	}
	for key, saving := range map[string]float64{"Deployment shop/web": 0.20, "StatefulSet shop/api": 0} {
		if w := byKey[key]; !w.Simulated || !near(w.Saving, saving) {
			t.Errorf("%s saves $%.2f/h (simulated %v), want $%.2f", key, w.Saving, w.Simulated, saving)
		}
	}
	if w := byKey["Pod shop/debug"]; w.Simulated {
		t.Errorf("debug has no suggestion yet, but was simulated")
	}
	if ps[0].Spec.Containers[0].Resources.Requests.Cpu().String() != "1500m" {
		t.Errorf("Simulate changed the input's pods")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := Simulate(ctx, in, Suggest(ps, func(w Key, _ []*corev1.Pod, _ string) usage.Stats { return stats[w.String()] }, DefaultPolicy())); r.Unsimulated != 2 {
		t.Errorf("with the context ended, %d workloads unsimulated, want 2", r.Unsimulated)
	}
}
