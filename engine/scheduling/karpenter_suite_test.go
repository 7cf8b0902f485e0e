package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

// This file restates cases of Karpenter's own provisioning and scheduling suites
// (sigs.k8s.io/karpenter pkg/controllers/provisioning) over nodepilot's engine: each case names
// the Karpenter case it restates, as Karpenter's suite names it, and checks the same outcome.

// world is the instance types the restated cases run on: the synthetic amd64 types, and arm64
// copies of the first four at a tenth more.
func world() []*cloudprovider.InstanceType {
	amd := syntheticTypes(16)
	out := slices.Clone(amd)
	for _, it := range amd[:4] {
		arm := *it
		arm.Name = "arm-" + it.Name
		arm.Offerings = nil
		for _, o := range it.Offerings {
			o.Price *= 1.1
			arm.Offerings = append(arm.Offerings, o)
		}
		arm.Requirements = requirements.FromLabels(map[string]string{
			corev1.LabelInstanceTypeStable: arm.Name,
			corev1.LabelArchStable:         "arm64",
			corev1.LabelOSStable:           "linux",
			"size":                         it.Requirements.Get("size").Any(),
		}).Add(it.Requirements.Get(zoneKey), it.Requirements.Get(ctKey))
		out = append(out, &arm)
	}
	return out
}

// solve runs the engine with Karpenter's well-known labels, and the synthetic "size" label as
// one (it stands for Karpenter's integer test label).
func solve(pools []NodePool, pods []*corev1.Pod, opts ...func(*Input)) *Results {
	in := &Input{NodePools: pools, Pods: pods, WellKnownLabels: append(karpv1.WellKnownLabels().UnsortedList(), "size")}
	for _, o := range opts {
		o(in)
	}
	return Solve(in)
}

func scheduledCount(r *Results) int { return len(placement(r)) }

// expect checks how many pods were placed, left unschedulable, and how many NodeClaims opened.
func expect(t *testing.T, r *Results, placed, unschedulable, nodeClaims int) {
	t.Helper()
	if got := scheduledCount(r); got != placed || len(r.Unschedulable) != unschedulable || len(r.NewNodeClaims) != nodeClaims {
		t.Fatalf("placed %d, unschedulable %d, nodeclaims %d; want %d, %d, %d", got, len(r.Unschedulable), len(r.NewNodeClaims), placed, unschedulable, nodeClaims)
	}
}

// labelled is a NodePool that puts the given labels on its nodes.
func labelled(name string, its []*cloudprovider.InstanceType, labels map[string]string) NodePool {
	np := pool(name, 0, its)
	np.Labels = labels
	for k, v := range labels {
		np.Requirements = np.Requirements.Add(requirements.New(k, corev1.NodeSelectorOpIn, v))
	}
	return np
}

func withRequired(key string, op corev1.NodeSelectorOperator, values ...string) podOption {
	return withRequiredNodeAffinityTerms([]corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}})
}

func cpuDaemonSet(name, cpu string, tolerations ...corev1.Toleration) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Tolerations: tolerations,
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}}}
}

// zonesOf counts the placed pods per zone of their NodeClaim's offering.
func zonesOf(r *Results) map[string]int {
	out := map[string]int{}
	for _, nc := range r.NewNodeClaims {
		out[nc.Offering.Zone] += len(nc.Pods)
	}
	return out
}

const testKey, testValue = "test-key", "test-value"

// splitResourceTypes are five synthetic types, the first offering 25 of one extended resource
// and the second 25 of another.
func splitResourceTypes() []*cloudprovider.InstanceType {
	types := syntheticTypes(5)
	types[0].Capacity["karpenter.sh/super-great-gpu"] = resource.MustParse("25")
	types[1].Capacity["karpenter.sh/even-better-gpu"] = resource.MustParse("25")
	return types
}

// cpuLimited is the default NodePool with a CPU limit.
func cpuLimited(limit string) NodePool {
	np := pool("default", 0, world())
	np.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(limit)}
	return np
}

// staticPool is a NodePool of two replicas whose EC2NodeClass exists.
func staticPool(name string) *karpv1.NodePool {
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.Spec.Replicas = ptr.To[int64](2)
	np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	return np
}

// leftOut names, as the solve's unlaunchable NodePools, those Unlaunchable leaves out.
func leftOut(nps ...*karpv1.NodePool) func(*Input) {
	return func(in *Input) {
		for _, np := range nps {
			if r, ok := Unlaunchable(np, awsv1.EC2NodeClassGroupKind(), func(string) bool { return true }); ok {
				in.Unlaunchable = append(in.Unlaunchable, r)
			}
		}
	}
}

// karpenterCases are the restated cases, by the name Karpenter's suites give them.
var karpenterCases = map[string]func(t *testing.T){
	"Provisioning / should provision nodes": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "1", "")), 1, 0, 1)
	},
	"Provisioning / Should provision nodes for multiple pods": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, pods(3, "p", "1", "")), 3, 0, 1)
	},
	// NodePools that cannot launch for pods (static, deleting) are left out of a solve, named among
	// the pods' reasons, as provisioning and plan do through Unlaunchable.
	"Provisioning / StaticNodePool / should not create NodeClaims for StaticNodePool": func(t *testing.T) {
		r := solve(nil, pods(2, "p", "1", ""), leftOut(staticPool("static")))
		expect(t, r, 0, 2, 0)
		if code := r.Unschedulable[0].Reasons[0].Code; code != ReasonStaticNodePool {
			t.Errorf("reason %s, want %s", code, ReasonStaticNodePool)
		}
	},
	"Provisioning / StaticNodePool / should still provision dynamic NodeClaims when there are both Static and Dynamic NodePools": func(t *testing.T) {
		r := solve([]NodePool{pool("dynamic", 0, world())}, pods(2, "p", "1", ""), leftOut(staticPool("static")))
		expect(t, r, 2, 0, 1)
		if got := r.NewNodeClaims[0].NodePool; got != "dynamic" {
			t.Errorf("nodeclaim of %s, want dynamic", got)
		}
	},
	"Provisioning / should ignore NodePools that are deleting": func(t *testing.T) {
		deleting := staticPool("deleting")
		deleting.Spec.Replicas, deleting.DeletionTimestamp = nil, &metav1.Time{}
		r := solve(nil, pods(1, "p", "1", ""), leftOut(deleting))
		expect(t, r, 0, 1, 0)
		if code := r.Unschedulable[0].Reasons[0].Code; code != ReasonNodePoolDeleting {
			t.Errorf("reason %s, want %s", code, ReasonNodePoolDeleting)
		}
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should schedule unconstrained pods that don't have matching node selectors": func(t *testing.T) {
		r := solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})}, pods(1, "p", "1", ""))
		expect(t, r, 1, 0, 1)
		if got := r.NewNodeClaims[0].Labels[testKey]; got != testValue {
			t.Errorf("nodeclaim label %s=%q, want %q", testKey, got, testValue)
		}
	},
	"Scheduling / Preferential Fallback / Required / should not relax the final term": func(t *testing.T) {
		np := pool("default", 0, world(), requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1"))
		p := pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpIn, "invalid"))
		expect(t, solve([]NodePool{np}, []*corev1.Pod{p}), 0, 1, 0)
	},
	"Scheduling / Preferential Fallback / Required / should relax multiple terms": func(t *testing.T) {
		term := func(zone string) []corev1.NodeSelectorRequirement {
			return []corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}
		}
		p := pod("p", "1", "", withRequiredNodeAffinityTerms(term("invalid"), term("invalid"), term("test-zone-1"), term("test-zone-2")))
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p})
		if z := zonesOf(r); len(z) != 1 || z["test-zone-1"] != 1 {
			t.Errorf("pods per zone %v, want the pod in test-zone-1, the first term that can hold", z)
		}
	},
	"Scheduling / In-Flight Nodes / should not launch a second node if there is an in-flight node that can support the pod": func(t *testing.T) {
		inflight := readyNode("in-flight", "2", nil)
		inflight.Initialized = false
		expect(t, solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "10m", ""), withNodes(inflight)), 1, 0, 0)
	},
	"Scheduling / In-Flight Nodes / should schedule pods with the same host port to different nodes": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, pods(2, "p", "100m", "", withHostPort(8080))), 2, 0, 2)
	},
	"Scheduling / Binpacking / should pack nodes tightly": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, syntheticTypes(5))}, []*corev1.Pod{pod("big", "4.5", ""), pod("small", "1", "")})
		expect(t, r, 2, 0, 2)
		if a, b := r.NewNodeClaims[0].InstanceType.Name, r.NewNodeClaims[1].InstanceType.Name; a == b {
			t.Errorf("both on %s: the small pod should get a smaller type", a)
		}
	},
	"Scheduling / Instance Type Compatibility / should fail to schedule a pod with resources requests that aren't on a single instance type": func(t *testing.T) {
		types := splitResourceTypes()
		p := pod("p", "", "")
		p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"karpenter.sh/super-great-gpu": resource.MustParse("1"), "karpenter.sh/even-better-gpu": resource.MustParse("1")}
		expect(t, solve([]NodePool{pool("default", 0, types)}, []*corev1.Pod{p}), 0, 1, 0)
	},
	"Scheduling / Instance Type Compatibility / should launch pods with resources that aren't on any single instance type on different instances": func(t *testing.T) {
		types := splitResourceTypes()
		needs := func(name, res string) *corev1.Pod {
			p := pod(name, "", "")
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceName(res): resource.MustParse("1")}
			return p
		}
		r := solve([]NodePool{pool("default", 0, types)}, []*corev1.Pod{needs("a", "karpenter.sh/super-great-gpu"), needs("b", "karpenter.sh/even-better-gpu")})
		expect(t, r, 2, 0, 2)
		if a, b := r.NewNodeClaims[0].InstanceType.Name, r.NewNodeClaims[1].InstanceType.Name; a == b {
			t.Errorf("both on %s, want the two types that each hold one resource", a)
		}
	},
	"Scheduling / Binpacking / should schedule a small pod on the smallest possible instance type": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "", "2000M")})
		expect(t, r, 1, 0, 1)
		if got := r.NewNodeClaims[0].InstanceType.Name; got != "fake-1" {
			t.Errorf("launches %s, want the smallest, fake-1", got)
		}
	},
	"Provisioning / should mark pod as unschedulable if there are no valid nodepools": func(t *testing.T) {
		expect(t, solve(nil, pods(1, "p", "1", "")), 0, 1, 0)
	},
	"Provisioning / should provision nodes for pods with supported node selectors": func(t *testing.T) {
		pools := []NodePool{pool("default", 0, world())}
		for _, sel := range [][]string{{karpv1.NodePoolLabelKey, "default"}, {zoneKey, "test-zone-2"}, {corev1.LabelArchStable, "arm64"},
			{corev1.LabelOSStable, "linux"}, {corev1.LabelInstanceTypeStable, "fake-4"}, {ctKey, od}} {
			t.Run(sel[0], func(t *testing.T) {
				expect(t, solve(pools, []*corev1.Pod{pod("p", "1", "", withNodeSelector(sel...))}), 1, 0, 1)
			})
		}
	},
	"Provisioning / should provision multiple nodes when maxPods is set": func(t *testing.T) {
		// fake-1 holds 10 pods.
		expect(t, solve([]NodePool{pool("default", 0, syntheticTypes(1))}, pods(15, "p", "10m", "")), 15, 0, 2)
	},
	"Provisioning / Resource Limits / should not schedule when limits are exceeded": func(t *testing.T) {
		np := cpuLimited("20")
		np.Usage = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}
		expect(t, solve([]NodePool{np}, pods(1, "p", "1", "")), 0, 1, 0)
	},
	"Provisioning / Resource Limits / should not schedule if limits would be exceeded": func(t *testing.T) {
		// 2.1 CPUs need a 3-CPU type, past a limit of 2.
		np := cpuLimited("2")
		expect(t, solve([]NodePool{np}, pods(1, "p", "2.1", "")), 0, 1, 0)
	},
	"Provisioning / Resource Limits / should not schedule to a nodepool after a scheduling round if limits would be exceeded": func(t *testing.T) {
		np := cpuLimited("2")
		first := solve([]NodePool{np}, pods(1, "a", "1.75", ""))
		expect(t, first, 1, 0, 1)
		// The next round counts the 2-CPU node launched against the limit.
		np.Usage = first.NewNodeClaims[0].InstanceType.Capacity
		expect(t, solve([]NodePool{np}, pods(1, "b", "1.75", "")), 0, 1, 0)
	},
	"Provisioning / Resource Limits / should schedule if limits would be met": func(t *testing.T) {
		np := cpuLimited("2")
		expect(t, solve([]NodePool{np}, pods(1, "p", "1", "")), 1, 0, 1)
	},
	"Provisioning / Resource Limits / should partially schedule if limits would be exceeded": func(t *testing.T) {
		// Room for one 2-CPU node: the pod that one-per-node keeps apart from it waits.
		np := cpuLimited("2")
		ps := pods(2, "p", "1500m", "", withLabels("app", "x"), withAntiAffinity(corev1.LabelHostname, map[string]string{"app": "x"}))
		expect(t, solve([]NodePool{np}, ps), 1, 1, 1)
	},
	"Provisioning / Resource Limits / should not schedule if limits would be exceeded (node)": func(t *testing.T) {
		np := pool("default", 0, world())
		np.Limits = corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse("1")}
		np.Usage = corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse("1")}
		expect(t, solve([]NodePool{np}, pods(1, "p", "1", "")), 0, 1, 0)
	},
	"Provisioning / Daemonsets / should account for daemonsets": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "1", ""), func(in *Input) {
			in.DaemonSets = []*appsv1.DaemonSet{cpuDaemonSet("ds", "1")}
		})
		expect(t, r, 1, 0, 1)
		// 1 + 1 + 100m reserved: three CPUs.
		if got := r.NewNodeClaims[0].InstanceType.Name; got != "fake-3" {
			t.Errorf("launches %s, want fake-3", got)
		}
	},
	"Provisioning / Daemonsets / should not schedule if daemonset overhead is too large": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "1", ""), func(in *Input) {
			in.DaemonSets = []*appsv1.DaemonSet{cpuDaemonSet("ds", "16")}
		})
		expect(t, r, 0, 1, 0)
	},
	"Provisioning / Daemonsets / should ignore daemonsets without matching tolerations": func(t *testing.T) {
		np := pool("default", 0, world())
		np.Taints = []corev1.Taint{{Key: "foo", Value: "bar", Effect: corev1.TaintEffectNoSchedule}}
		r := solve([]NodePool{np}, pods(1, "p", "1", "", withToleration("foo", "bar", corev1.TaintEffectNoSchedule)), func(in *Input) {
			in.DaemonSets = []*appsv1.DaemonSet{cpuDaemonSet("ds", "1")}
		})
		expect(t, r, 1, 0, 1)
		if got := r.NewNodeClaims[0].InstanceType.Name; got != "fake-2" {
			t.Errorf("launches %s, want fake-2 (the DaemonSet does not run there)", got)
		}
	},
	"Provisioning / Daemonsets / should ignore daemonsets when no instance types meet the daemonset requirements": func(t *testing.T) {
		ds := cpuDaemonSet("ds", "1")
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"non-existent-instance-type"}}}}}}}}
		r := solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "1", ""), func(in *Input) { in.DaemonSets = []*appsv1.DaemonSet{ds} })
		expect(t, r, 1, 0, 1)
		if got := r.NewNodeClaims[0].InstanceType.Name; got != "fake-2" {
			t.Errorf("launches %s, want fake-2 (the DaemonSet runs on no type)", got)
		}
	},
	"Provisioning / Daemonsets / should account for daemonsets with a custom label nodeSelector that matches the nodepool": func(t *testing.T) {
		ds := cpuDaemonSet("ds", "1")
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"purpose": "monitoring"}
		np := labelled("default", world(), map[string]string{"purpose": "monitoring"})
		r := solve([]NodePool{np}, pods(1, "p", "1", ""), func(in *Input) { in.DaemonSets = []*appsv1.DaemonSet{ds} })
		expect(t, r, 1, 0, 1)
		if got := r.NewNodeClaims[0].InstanceType.Name; got != "fake-3" {
			t.Errorf("launches %s, want fake-3 (the DaemonSet's CPU counts)", got)
		}
	},
	"Provisioning / Daemonsets / should be able to schedule pods if resource requests and limits are not defined": func(t *testing.T) {
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "kube-system"},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}}}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}, func(in *Input) { in.DaemonSets = []*appsv1.DaemonSet{ds} }), 1, 0, 1)
	},
	"Provisioning / Daemonsets / should consider a daemonset schedulable with a PreferNoSchedule taint": func(t *testing.T) {
		np := pool("default", 0, world())
		np.Taints = []corev1.Taint{{Key: "foo", Value: "bar", Effect: corev1.TaintEffectPreferNoSchedule}}
		r := solve([]NodePool{np}, pods(1, "p", "1", ""), func(in *Input) {
			in.DaemonSets = []*appsv1.DaemonSet{cpuDaemonSet("ds", "1")}
		})
		expect(t, r, 1, 0, 1)
		if got := r.NewNodeClaims[0].DaemonSetOverhead.Cpu().String(); got != "1" {
			t.Errorf("daemonset overhead %s, want 1", got)
		}
	},
	"Provisioning / Taints / should schedule pods that tolerate taints": func(t *testing.T) {
		np := pool("default", 0, world())
		np.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
		expect(t, solve([]NodePool{np}, pods(1, "p", "1", "", withToleration("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule))), 1, 0, 1)
		expect(t, solve([]NodePool{np}, pods(1, "p", "1", "")), 0, 1, 0)
	},
	"Provisioning / Multiple NodePools / should schedule to an explicitly selected NodePool": func(t *testing.T) {
		r := solve([]NodePool{pool("a", 0, world()), pool("b", 0, world())}, []*corev1.Pod{pod("p", "1", "", withNodeSelector(karpv1.NodePoolLabelKey, "b"))})
		expect(t, r, 1, 0, 1)
		if r.NewNodeClaims[0].NodePool != "b" {
			t.Errorf("nodepool %s, want b", r.NewNodeClaims[0].NodePool)
		}
	},
	"Provisioning / Multiple NodePools / should schedule to a NodePool by labels": func(t *testing.T) {
		r := solve([]NodePool{pool("a", 0, world()), labelled("b", world(), map[string]string{"foo": "bar"})}, []*corev1.Pod{pod("p", "1", "", withNodeSelector("foo", "bar"))})
		expect(t, r, 1, 0, 1)
		if r.NewNodeClaims[0].NodePool != "b" {
			t.Errorf("nodepool %s, want b", r.NewNodeClaims[0].NodePool)
		}
	},
	"Provisioning / Multiple NodePools / should not match NodePool with PreferNoSchedule taint when other NodePool match": func(t *testing.T) {
		tainted := pool("a-tainted", 0, world())
		tainted.Taints = []corev1.Taint{{Key: "foo", Value: "bar", Effect: corev1.TaintEffectPreferNoSchedule}}
		r := solve([]NodePool{tainted, pool("b", 0, world())}, pods(1, "p", "1", ""))
		expect(t, r, 1, 0, 1)
		if r.NewNodeClaims[0].NodePool != "b" {
			t.Errorf("nodepool %s, want b", r.NewNodeClaims[0].NodePool)
		}
	},
	"Provisioning / Multiple NodePools / Weighted NodePools / should schedule to the nodepool with the highest priority always": func(t *testing.T) {
		r := solve([]NodePool{pool("low", 20, world()), pool("high", 100, world()), pool("none", 0, world())}, pods(3, "p", "1", ""))
		for _, nc := range r.NewNodeClaims {
			if nc.NodePool != "high" {
				t.Errorf("nodepool %s, want high", nc.NodePool)
			}
		}
	},
	"Provisioning / Multiple NodePools / Weighted NodePools / should schedule to explicitly selected nodepool even if other nodePools are higher priority": func(t *testing.T) {
		r := solve([]NodePool{pool("high", 100, world()), pool("low", 1, world())}, []*corev1.Pod{pod("p", "1", "", withNodeSelector(karpv1.NodePoolLabelKey, "low"))})
		expect(t, r, 1, 0, 1)
		if r.NewNodeClaims[0].NodePool != "low" {
			t.Errorf("nodepool %s, want low", r.NewNodeClaims[0].NodePool)
		}
	},
	"Provisioning / Preferential Fallback / Required / should not relax the final term": func(t *testing.T) {
		p := pod("p", "1", "", withRequiredNodeAffinityTerms([]corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"invalid"}}}))
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 0, 1, 0)
	},
	"Provisioning / Preferential Fallback / Required / should relax multiple terms": func(t *testing.T) {
		p := pod("p", "1", "", withRequiredNodeAffinityTerms(
			[]corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"invalid"}}},
			[]corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"invalid"}}},
			[]corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"}}},
			[]corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-2"}}}))
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p})
		expect(t, r, 1, 0, 1)
		if z := r.NewNodeClaims[0].Offering.Zone; z != "test-zone-1" {
			t.Errorf("zone %q, want test-zone-1 (the first term that can be met)", z)
		}
	},
	"Provisioning / Preferential Fallback / Preferences / should relax all node affinity terms": func(t *testing.T) {
		p := pod("p", "1", "", withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpIn, "invalid"),
			withPreferredNodeAffinity(1, corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, "invalid"))
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 1, 0, 1)
	},
	"Provisioning / Preferential Fallback / Preferences / should relax to use lighter weights": func(t *testing.T) {
		p := pod("p", "1", "", withPreferredNodeAffinity(100, zoneKey, corev1.NodeSelectorOpIn, "test-zone-3"),
			withPreferredNodeAffinity(50, zoneKey, corev1.NodeSelectorOpIn, "test-zone-2"),
			withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"))
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p})
		expect(t, r, 1, 0, 1)
		if z := r.NewNodeClaims[0].Offering.Zone; z != "test-zone-2" {
			t.Errorf("zone %q, want test-zone-2", z)
		}
	},
	"Scheduling / Custom Constraints / NodePool with Labels / should schedule unconstrained pods that don't have matching node selectors": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})}, pods(1, "p", "1", "")), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / NodePool with Labels / should not schedule pods that have conflicting node selectors": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withNodeSelector(testKey, "different-value"))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / NodePool with Labels / should not schedule pods that have node selectors with undefined key": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withNodeSelector("other-key", "value"))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / NodePool with Labels / should schedule pods that have matching requirements": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpIn, testValue, "another-value"))}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / NodePool with Labels / should not schedule pods that have conflicting requirements": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpNotIn, testValue))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should use NodePool constraints": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world(), requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-2"))}, pods(1, "p", "1", ""))
		expect(t, r, 1, 0, 1)
		if z := r.NewNodeClaims[0].Offering.Zone; z != "test-zone-2" {
			t.Errorf("zone %q, want test-zone-2", z)
		}
	},
	"Scheduling / Custom Constraints / Well Known Labels / should use node selectors": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withNodeSelector(zoneKey, "test-zone-2"))})
		expect(t, r, 1, 0, 1)
		if z := r.NewNodeClaims[0].Offering.Zone; z != "test-zone-2" {
			t.Errorf("zone %q, want test-zone-2", z)
		}
	},
	"Scheduling / Custom Constraints / Well Known Labels / should not schedule nodes with a hostname selector": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withNodeSelector(corev1.LabelHostname, "red-node"))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should not schedule the pod if nodeselector unknown": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withNodeSelector(zoneKey, "unknown"))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should not schedule if node selector outside of NodePool constraints": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world(), requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1"))},
			[]*corev1.Pod{pod("p", "1", "", withNodeSelector(zoneKey, "test-zone-2"))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible requirements with Operator=In": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-3"))})
		expect(t, r, 1, 0, 1)
		if z := r.NewNodeClaims[0].Offering.Zone; z != "test-zone-3" {
			t.Errorf("zone %q, want test-zone-3", z)
		}
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible requirements with Operator=Gt": func(t *testing.T) {
		integerCase(t, corev1.NodeSelectorOpGt, "8", func(size int) bool { return size > 8 })
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible requirements with Operator=Lt": func(t *testing.T) {
		integerCase(t, corev1.NodeSelectorOpLt, "8", func(size int) bool { return size < 8 })
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible requirements with Operator=Gte": func(t *testing.T) {
		integerCase(t, karpv1.NodeSelectorOpGte, "8", func(size int) bool { return size >= 8 })
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible requirements with Operator=Lte": func(t *testing.T) {
		integerCase(t, karpv1.NodeSelectorOpLte, "8", func(size int) bool { return size <= 8 })
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible requirements with Operator=NotIn": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpNotIn, "test-zone-1", "test-zone-2", "unknown"))})
		expect(t, r, 1, 0, 1)
		if z := r.NewNodeClaims[0].Offering.Zone; z != "test-zone-3" {
			t.Errorf("zone %q, want test-zone-3", z)
		}
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should schedule pods that have node selectors with NotIn operator and undefined key": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpNotIn, testValue))}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should not schedule pods that have node selectors with Exists operator and undefined key": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpExists))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should schedule pods that with DoesNotExists operator and undefined key": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpDoesNotExist))}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should schedule the pod with Exists operator and defined key": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpExists))}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should not schedule the pod with DoesNotExists operator and defined key": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpDoesNotExist))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should schedule compatible pods to the same node": func(t *testing.T) {
		np := pool("default", 0, world(), requirements.New(testKey, corev1.NodeSelectorOpIn, testValue, "another-value"))
		r := solve([]NodePool{np}, []*corev1.Pod{
			pod("a", "1", "", withNodeSelector(testKey, testValue)),
			pod("b", "1", "", withRequired(testKey, corev1.NodeSelectorOpIn, testValue, "another-value"))})
		expect(t, r, 2, 0, 1)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should schedule incompatible pods to the different node": func(t *testing.T) {
		np := pool("default", 0, world(), requirements.New(testKey, corev1.NodeSelectorOpIn, testValue, "another-value"))
		r := solve([]NodePool{np}, []*corev1.Pod{
			pod("a", "1", "", withNodeSelector(testKey, testValue)),
			pod("b", "1", "", withNodeSelector(testKey, "another-value"))})
		expect(t, r, 2, 0, 2)
	},
	"Scheduling / Instance Type Compatibility / should not schedule if requesting more resources than any instance type has": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "512", "")), 0, 1, 0)
	},
	"Scheduling / Instance Type Compatibility / should launch pods with different archs on different instances": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{
			pod("a", "1", "", withNodeSelector(corev1.LabelArchStable, "amd64")),
			pod("b", "1", "", withNodeSelector(corev1.LabelArchStable, "arm64"))})
		expect(t, r, 2, 0, 2)
	},
	"Scheduling / Instance Type Compatibility / should launch pods with different zone selectors on different instances": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{
			pod("a", "1", "", withNodeSelector(zoneKey, "test-zone-1")),
			pod("b", "1", "", withNodeSelector(zoneKey, "test-zone-2"))})
		expect(t, r, 2, 0, 2)
	},
	"Scheduling / Instance Type Compatibility / should launch pods with different instance type node selectors on different instances": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{
			pod("a", "1", "", withNodeSelector(corev1.LabelInstanceTypeStable, "fake-4")),
			pod("b", "1", "", withNodeSelector(corev1.LabelInstanceTypeStable, "fake-8"))})
		expect(t, r, 2, 0, 2)
	},
	"Scheduling / Instance Type Compatibility / should exclude instance types that are not supported by the pod constraints (node affinity/instance type)": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("a", "1", "", withRequired(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpNotIn, "fake-2"))})
		expect(t, r, 1, 0, 1)
		for _, it := range r.NewNodeClaims[0].InstanceTypes {
			if it.Name == "fake-2" {
				t.Error("fake-2 is among the options")
			}
		}
	},
	"Scheduling / Binpacking / should schedule a small pod on the smallest instance": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "100m", ""))
		expect(t, r, 1, 0, 1)
		if got := r.NewNodeClaims[0].InstanceType.Name; got != "fake-1" {
			t.Errorf("launches %s, want fake-1", got)
		}
	},
	"Scheduling / Binpacking / should schedule multiple small pods on the smallest possible instance type": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, pods(5, "p", "100m", ""))
		expect(t, r, 5, 0, 1)
		if got := r.NewNodeClaims[0].InstanceType.Name; got != "fake-1" {
			t.Errorf("launches %s, want fake-1", got)
		}
	},
	"Scheduling / Binpacking / should create new nodes when a node is at capacity": func(t *testing.T) {
		// Only fake-2 (2 CPUs, 100m reserved): one 1-CPU pod each.
		expect(t, solve([]NodePool{pool("default", 0, syntheticTypes(16)[1:2])}, pods(4, "p", "1", "")), 4, 0, 4)
	},
	"Scheduling / Binpacking / should not schedule pods that exceed every instance type's capacity": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "", "1Ti")), 0, 1, 0)
	},
	"Scheduling / Binpacking / should take into account initContainer resource requests when binpacking": func(t *testing.T) {
		p := pod("p", "1", "")
		p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}}
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p})
		expect(t, r, 1, 0, 1)
		if got := r.NewNodeClaims[0].InstanceType.Name; got != "fake-5" {
			t.Errorf("launches %s, want fake-5 (4 CPUs for the init container, 100m reserved)", got)
		}
	},
	"Scheduling / Existing Nodes / should schedule a pod to an existing node unowned by Karpenter": func(t *testing.T) {
		node := ExistingNode{Name: "unowned", Initialized: true, Labels: map[string]string{corev1.LabelHostname: "unowned", zoneKey: "test-zone-1"},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")}}
		r := solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "1", ""), func(in *Input) { in.Nodes = []ExistingNode{node} })
		expect(t, r, 1, 0, 0)
	},
	"Topology / Zonal / should balance pods across zones (match labels)": func(t *testing.T) {
		ps := pods(4, "p", "1", "", withLabels("app", "web"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}))
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		counts := slices.Sorted(maps.Values(zonesOf(r)))
		if fmt.Sprint(counts) != "[1 1 2]" {
			t.Errorf("pods per zone %v, want 1, 1, 2", zonesOf(r))
		}
	},
	"Topology / Zonal / should balance pods across zones (match expressions)": func(t *testing.T) {
		ps := pods(4, "p", "1", "", withLabels("test", "test"), func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: zoneKey, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "test", Operator: metav1.LabelSelectorOpIn, Values: []string{"test"}}}}}}
		})
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		if counts := slices.Sorted(maps.Values(zonesOf(r))); fmt.Sprint(counts) != "[1 1 2]" {
			t.Errorf("pods per zone %v, want 1, 1, 2", zonesOf(r))
		}
	},
	"Topology / should ignore unknown topology keys": func(t *testing.T) {
		spread := pod("spread", "1", "", withLabels("test", "test"), withSpread("unknown", 1, corev1.DoNotSchedule, map[string]string{"test": "test"}))
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{spread, pod("plain", "1", "")})
		if placed := placement(r); placed["spread"] != "" || placed["plain"] == "" {
			t.Errorf("placed %v, want the plain pod and not the one spread over an unknown key", placed)
		}
	},
	"Topology / should not spread when a nil label selector is defined": func(t *testing.T) {
		ps := pods(2, "p", "1", "", withLabels("test", "test"), func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: zoneKey, WhenUnsatisfiable: corev1.DoNotSchedule}}
		})
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		if z := zonesOf(r); len(z) != 1 || scheduledCount(r) != 2 {
			t.Errorf("pods per zone %v, want both in one zone", z)
		}
	},
	"Taints / should schedule pods that tolerate NodePool constraints": func(t *testing.T) {
		np := pool("default", 0, world())
		np.Taints = []corev1.Taint{{Key: "test-key", Value: "test-value", Effect: corev1.TaintEffectNoSchedule}}
		tolerating := func(tol ...corev1.Toleration) podOption { return func(p *corev1.Pod) { p.Spec.Tolerations = tol } }
		ps := []*corev1.Pod{
			pod("exists", "1", "", tolerating(corev1.Toleration{Key: "test-key", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})),
			pod("equal", "1", "", tolerating(corev1.Toleration{Key: "test-key", Value: "test-value", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule})),
			pod("none", "1", ""),
			pod("other-key", "1", "", tolerating(corev1.Toleration{Key: "invalid", Operator: corev1.TolerationOpExists})),
			pod("other-value", "1", "", tolerating(corev1.Toleration{Key: "test-key", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule})),
		}
		placed := placement(solve([]NodePool{np}, ps))
		for name, want := range map[string]bool{"exists": true, "equal": true, "none": false, "other-key": false, "other-value": false} {
			if (placed[name] != "") != want {
				t.Errorf("pod %s placed: %v, want %v", name, placed[name] != "", want)
			}
		}
	},
	"Taints / should provision nodes with taints and schedule pods if the taint is only a startup taint": func(t *testing.T) {
		np := pool("default", 0, world())
		np.StartupTaints = []corev1.Taint{{Key: "ignore-me", Value: "nothing-to-see-here", Effect: corev1.TaintEffectNoSchedule}}
		expect(t, solve([]NodePool{np}, pods(1, "p", "1", "")), 1, 0, 1)
	},
	"Topology / Pod Affinity/Anti-Affinity / should respect pod affinity (hostname)": func(t *testing.T) {
		ps := pods(10, "spread", "1", "", withLabels("test", "test"), withSpread(corev1.LabelHostname, 1, corev1.DoNotSchedule, map[string]string{"test": "test"}))
		ps = append(ps, pod("aff1", "1", "", withLabels("security", "s2")), pod("aff2", "1", "", withPodAffinity(corev1.LabelHostname, map[string]string{"security": "s2"})))
		placed := placement(solve([]NodePool{pool("default", 0, world())}, ps))
		if placed["aff1"] == "" || placed["aff1"] != placed["aff2"] {
			t.Errorf("aff1 on %q, aff2 on %q: want the same node", placed["aff1"], placed["aff2"])
		}
	},
	"Topology / Hostname / should balance pods across nodes": func(t *testing.T) {
		ps := pods(4, "p", "1", "", withLabels("app", "web"), withSpread(corev1.LabelHostname, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}))
		expect(t, solve([]NodePool{pool("default", 0, world())}, ps), 4, 0, 4)
	},
	"Topology / CapacityType / should balance pods across capacity types": func(t *testing.T) {
		ps := pods(2, "p", "1", "", withLabels("app", "web"), withSpread(ctKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}))
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		got := map[string]int{}
		for _, nc := range r.NewNodeClaims {
			got[nc.Offering.CapacityType] += len(nc.Pods)
		}
		if got[spot] != 1 || got[od] != 1 {
			t.Errorf("pods per capacity type %v, want one each", got)
		}
	},
	"Topology / Combined Zonal Topology and Node Affinity / should limit spread options by nodeSelector": func(t *testing.T) {
		ps := pods(4, "p", "1", "", withLabels("app", "web"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}),
			withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"))
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		if z := zonesOf(r); len(z) != 2 || z["test-zone-1"] != 2 || z["test-zone-2"] != 2 {
			t.Errorf("pods per zone %v, want 2 in each of zones 1 and 2", z)
		}
	},
	"Topology / Pod Affinity/Anti-Affinity / should separate nodes using simple pod anti-affinity on hostname": func(t *testing.T) {
		ps := pods(2, "p", "1", "", withLabels("app", "web"), withAntiAffinity(corev1.LabelHostname, map[string]string{"app": "web"}))
		expect(t, solve([]NodePool{pool("default", 0, world())}, ps), 2, 0, 2)
	},
	"Topology / Pod Affinity/Anti-Affinity / should respect self pod affinity (hostname)": func(t *testing.T) {
		ps := pods(3, "p", "1", "", withLabels("app", "web"), withPodAffinity(corev1.LabelHostname, map[string]string{"app": "web"}))
		expect(t, solve([]NodePool{pool("default", 0, world())}, ps), 3, 0, 1)
	},
	"Topology / Pod Affinity/Anti-Affinity / should not schedule pods with affinity to a non-existent pod": func(t *testing.T) {
		p := pod("p", "1", "", withPodAffinity(zoneKey, map[string]string{"app": "nobody"}))
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 0, 1, 0)
	},
	"Topology / Pod Affinity/Anti-Affinity / should allow violation of preferred pod anti-affinity": func(t *testing.T) {
		ps := pods(10, "p", "1", "", withLabels("app", "web"), withPreferredAntiAffinity(zoneKey, 50, map[string]string{"app": "web"}))
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		if scheduledCount(r) != 10 {
			t.Errorf("placed %d of 10", scheduledCount(r))
		}
	},
	"Scheduling / Custom Constraints / Constraints Validation / should schedule pods that have node selectors with label in wellknown label list": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withNodeSelector(zoneKey, "test-zone-1"))}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should not schedule pods that have node selectors with In operator and undefined key": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpIn, testValue))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should schedule pods that have node selectors with matching value and In operator": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpIn, testValue))}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should not schedule pods that have node selectors with matching value and NotIn operator": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpNotIn, testValue))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should not schedule pods that have node selectors with different value and In operator": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpIn, "another-value"))}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Scheduling Logic / should schedule pods that have node selectors with different value and NotIn operator": func(t *testing.T) {
		expect(t, solve([]NodePool{labelled("default", world(), map[string]string{testKey: testValue})},
			[]*corev1.Pod{pod("p", "1", "", withRequired(testKey, corev1.NodeSelectorOpNotIn, "another-value"))}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should not schedule incompatible preferences and requirements with Operator=In": func(t *testing.T) {
		p := pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpIn, "unknown"), withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpIn, "test-zone-2"))
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should not schedule incompatible preferences and requirements with Operator=NotIn": func(t *testing.T) {
		p := pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpNotIn, "test-zone-1", "test-zone-2", "test-zone-3"))
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 0, 1, 0)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible preferences and requirements with Operator=In": func(t *testing.T) {
		p := pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2", "test-zone-3", "unknown"),
			withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpIn, "test-zone-2", "unknown"))
		zoneCase(t, p, "test-zone-2")
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule incompatible preferences and requirements with Operator=In": func(t *testing.T) {
		p := pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2", "test-zone-3", "unknown"),
			withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpIn, "unknown"))
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible preferences and requirements with Operator=NotIn": func(t *testing.T) {
		p := pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2", "test-zone-3", "unknown"),
			withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpNotIn, "test-zone-1", "test-zone-3"))
		zoneCase(t, p, "test-zone-2")
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule incompatible preferences and requirements with Operator=NotIn": func(t *testing.T) {
		p := pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2", "test-zone-3", "unknown"),
			withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpNotIn, "test-zone-1", "test-zone-2", "test-zone-3"))
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 1, 0, 1)
	},
	"Scheduling / Custom Constraints / Well Known Labels / should schedule compatible node selectors, preferences and requirements": func(t *testing.T) {
		p := pod("p", "1", "", withNodeSelector(zoneKey, "test-zone-3"), withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2", "test-zone-3"),
			withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpIn, "test-zone-2", "test-zone-3"))
		zoneCase(t, p, "test-zone-3")
	},
	"Scheduling / Preferential Fallback / Preferred / should schedule even if preference is conflicting with requirement": func(t *testing.T) {
		p := pod("p", "1", "", withRequired(zoneKey, corev1.NodeSelectorOpIn, "test-zone-3"), withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpNotIn, "test-zone-3"))
		zoneCase(t, p, "test-zone-3")
	},
	"Scheduling / Preferential Fallback / Preferred / should schedule even if preference requirements are conflicting": func(t *testing.T) {
		p := pod("p", "1", "", withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpIn, "invalid"), withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpNotIn, "invalid"))
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 1, 0, 1)
	},
	"Scheduling / Binpacking / should create new nodes when a node is at capacity due to pod limits per node": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, syntheticTypes(1))}, pods(25, "p", "1m", "")), 25, 0, 3)
	},
	"Scheduling / Binpacking / should not schedule pods when initContainer resource requests are greater than available instance types": func(t *testing.T) {
		p := pod("p", "1", "")
		p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("512")}}}}
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 0, 1, 0)
	},
	"Scheduling / Binpacking / should handle zero-quantity resource requests": func(t *testing.T) {
		p := pod("p", "", "")
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0"), "foo.com/weird-resources": resource.MustParse("0")}
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 1, 0, 1)
	},
	"Scheduling / In-Flight Nodes / should launch a second node if a pod won't fit on the existingNodes node": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "2", ""), withNodes(readyNode("small", "1", nil)))
		expect(t, r, 1, 0, 1)
	},
	"Scheduling / In-Flight Nodes / should launch a second node if a pod isn't compatible with the existingNodes node (node selector)": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withNodeSelector(zoneKey, "test-zone-2"))}, withNodes(readyNode("in-zone-1", "4", nil)))
		expect(t, r, 1, 0, 1)
	},
	"Scheduling / In-Flight Nodes / Taints / should not assume pod will schedule to a tainted node": func(t *testing.T) {
		tainted := readyNode("tainted", "4", []corev1.Taint{{Key: "foo", Value: "bar", Effect: corev1.TaintEffectNoSchedule}})
		expect(t, solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "1", ""), withNodes(tainted)), 1, 0, 1)
	},
	"Scheduling / Existing Nodes / should schedule multiple pods to an existing node unowned by Karpenter": func(t *testing.T) {
		expect(t, solve([]NodePool{pool("default", 0, world())}, pods(3, "p", "1", ""), withNodes(readyNode("unowned", "4", nil))), 3, 0, 0)
	},
	"Scheduling / Existing Nodes / should consider a pod incompatible with an existing node but compatible with NodePool": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "1", "", withNodeSelector(zoneKey, "test-zone-3"))}, withNodes(readyNode("zone-1", "4", nil)))
		expect(t, r, 1, 0, 1)
	},
	"Topology / Zonal / should respect NodePool zonal constraints": func(t *testing.T) {
		np := pool("default", 0, world(), requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"))
		ps := pods(4, "p", "1", "", withLabels("app", "web"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}))
		if z := zonesOf(solve([]NodePool{np}, ps)); len(z) != 2 || z["test-zone-1"] != 2 || z["test-zone-2"] != 2 {
			t.Errorf("pods per zone %v, want 2 in each of zones 1 and 2", z)
		}
	},
	"Topology / Zonal / should respect NodePool zonal constraints (subset) with labels": func(t *testing.T) {
		np := labelled("default", world(), map[string]string{zoneKey: "test-zone-1"})
		ps := pods(4, "p", "1", "", withLabels("test", "test"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"test": "test"}))
		if z := zonesOf(solve([]NodePool{np}, ps)); len(z) != 1 || z["test-zone-1"] != 4 {
			t.Errorf("pods per zone %v, want all four in test-zone-1", z)
		}
	},
	"Topology / Zonal / should respect NodePool zonal constraints (subset) with requirements and labels": func(t *testing.T) {
		np := labelled("default", world(), map[string]string{zoneKey: "test-zone-1"})
		np.Requirements = np.Requirements.Add(requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"))
		ps := pods(4, "p", "1", "", withLabels("test", "test"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"test": "test"}))
		if z := zonesOf(solve([]NodePool{np}, ps)); len(z) != 1 || z["test-zone-1"] != 4 {
			t.Errorf("pods per zone %v, want all four in test-zone-1", z)
		}
	},
	"Topology / Pod Affinity/Anti-Affinity / should support pod anti-affinity with a zone topology": func(t *testing.T) {
		// As Karpenter, one pod per round: its zone is known once its node exists; the next round
		// sees that node and places one more pod in another zone, until every zone holds one.
		var nodes []ExistingNode
		for round := 1; round <= 4; round++ {
			ps := pods(3, fmt.Sprint("r", round), "1", "", withLabels("security", "s2"), withAntiAffinity(zoneKey, map[string]string{"security": "s2"}))
			r := solve([]NodePool{pool("default", 0, world())}, ps, withNodes(nodes...))
			want := map[bool]int{true: 1, false: 0}[round <= 3]
			if len(r.NewNodeClaims) != want || scheduledCount(r) != want {
				t.Fatalf("round %d: %d nodeclaims, %d pods placed; want %d", round, len(r.NewNodeClaims), scheduledCount(r), want)
			}
			for _, nc := range r.NewNodeClaims {
				n := readyNode(fmt.Sprint("node-", round), "4", nil)
				n.Labels[zoneKey], n.Pods = nc.Offering.Zone, nc.Pods
				nodes = append(nodes, n)
			}
		}
		zones := map[string]bool{}
		for _, n := range nodes {
			zones[n.Labels[zoneKey]] = true
		}
		if len(zones) != 3 {
			t.Errorf("zones %v, want one pod in each of the three", zones)
		}
	},
	"Topology / Zonal / should respect minDomains constraints": func(t *testing.T) {
		// Three domains wanted, two offered: each counts against a minimum of 0, so one pod each.
		np := pool("default", 0, world(), requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"))
		ps := pods(3, "p", "1", "", withLabels("test", "test"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"test": "test"}),
			func(p *corev1.Pod) { p.Spec.TopologySpreadConstraints[0].MinDomains = ptr.To[int32](3) })
		r := solve([]NodePool{np}, ps)
		if z := zonesOf(r); len(z) != 2 || z["test-zone-1"] != 1 || z["test-zone-2"] != 1 || len(r.Unschedulable) != 1 {
			t.Errorf("pods per zone %v, %d unschedulable; want one in each zone and one left", z, len(r.Unschedulable))
		}
	},
	"Topology / Zonal / should handle interdependent selectors": func(t *testing.T) {
		// The spread selects pods that do not exist: it never binds, and the pods share one node.
		ps := pods(5, "p", "100m", "", withSpread(corev1.LabelHostname, 1, corev1.DoNotSchedule, map[string]string{"test": "test"}))
		expect(t, solve([]NodePool{pool("default", 0, world())}, ps), 5, 0, 1)
	},
	"Topology / Combined Zonal Topology and Node Affinity / should not limit spread options by preferred node affinity": func(t *testing.T) {
		ps := pods(6, "p", "1", "", withLabels("test", "test"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"test": "test"}),
			withPreferredNodeAffinity(1, zoneKey, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"))
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		if z := zonesOf(r); len(z) != 3 || z["test-zone-1"] != 2 || z["test-zone-2"] != 2 || z["test-zone-3"] != 2 {
			t.Errorf("pods per zone %v, want two in each zone", z)
		}
	},
	"Topology / CapacityType / should violate max-skew when unsat = schedule anyway (capacity type)": func(t *testing.T) {
		spread := withSpread(ctKey, 1, corev1.ScheduleAnyway, map[string]string{"test": "test"})
		first := solve([]NodePool{pool("default", 0, world(), requirements.New(ctKey, corev1.NodeSelectorOpIn, spot))},
			pods(1, "a", "1.1", "", withLabels("test", "test"), spread))
		expect(t, first, 1, 0, 1)
		n := readyNode("spot-node", "2", nil)
		n.Labels[ctKey], n.Pods = spot, first.NewNodeClaims[0].Pods
		n.Requested = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1.1")}
		// Only on-demand can launch now: the five go there, skew or not.
		r := solve([]NodePool{pool("default", 0, world(), requirements.New(ctKey, corev1.NodeSelectorOpIn, od))},
			pods(5, "b", "1.1", "", withLabels("test", "test"), spread), withNodes(n))
		got := 0
		for _, nc := range r.NewNodeClaims {
			if nc.Offering.CapacityType == od {
				got += len(nc.Pods)
			}
		}
		if got != 5 {
			t.Errorf("%d pods on on-demand, want all 5", got)
		}
	},
	"Topology / Hostname / should balance pods on the same hostname up to maxskew": func(t *testing.T) {
		ps := pods(4, "p", "1", "", withLabels("app", "web"), withSpread(corev1.LabelHostname, 4, corev1.DoNotSchedule, map[string]string{"app": "web"}))
		expect(t, solve([]NodePool{pool("default", 0, world())}, ps), 4, 0, 1)
	},
	"Topology / CapacityType / should respect NodePool capacity type constraints": func(t *testing.T) {
		np := pool("default", 0, world(), requirements.New(ctKey, corev1.NodeSelectorOpIn, od))
		ps := pods(3, "p", "1", "", withLabels("app", "web"), withSpread(ctKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}))
		r := solve([]NodePool{np}, ps)
		if scheduledCount(r) != 3 {
			t.Fatalf("placed %d of 3", scheduledCount(r))
		}
		for _, nc := range r.NewNodeClaims {
			if nc.Offering.CapacityType != od {
				t.Errorf("capacity type %s, want on-demand only", nc.Offering.CapacityType)
			}
		}
	},
	"Topology / Pod Affinity/Anti-Affinity / should schedule a pod with empty pod affinity and anti-affinity": func(t *testing.T) {
		p := pod("p", "1", "")
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{}, PodAntiAffinity: &corev1.PodAntiAffinity{}}
		expect(t, solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p}), 1, 0, 1)
	},
	"Topology / Pod Affinity/Anti-Affinity / should respect self pod affinity (zone)": func(t *testing.T) {
		ps := pods(3, "p", "1", "", withLabels("app", "web"), withPodAffinity(zoneKey, map[string]string{"app": "web"}))
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		if z := zonesOf(r); len(z) != 1 || scheduledCount(r) != 3 {
			t.Errorf("pods per zone %v, want all three in one zone", z)
		}
	},
	"Topology / Pod Affinity/Anti-Affinity / should not violate pod anti-affinity on zone": func(t *testing.T) {
		// Three labelled pods pinned one per zone are placed first (larger first); the pod
		// that avoids them has no zone left.
		var ps []*corev1.Pod
		for i := 1; i <= 3; i++ {
			ps = append(ps, pod(fmt.Sprint("zone-", i), "2", "", withLabels("security", "s2"), withNodeSelector(zoneKey, fmt.Sprint("test-zone-", i))))
		}
		ps = append(ps, pod("avoider", "1", "", withAntiAffinity(zoneKey, map[string]string{"security": "s2"})))
		r := solve([]NodePool{pool("default", 0, world())}, ps)
		if placed := placement(r); len(placed) != 3 || placed["avoider"] != "" {
			t.Errorf("placed %v, want the three zone pods and not the avoider", placed)
		}
	},
	"Instance Type Selection / should schedule on one of the cheapest instances": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world())}, pod("p", "1", ""))
	},
	"Instance Type Selection / should schedule on one of the cheapest instances (pod arch = amd64)": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world())}, pod("p", "1", "", withNodeSelector(corev1.LabelArchStable, "amd64")))
	},
	"Instance Type Selection / should schedule on one of the cheapest instances (pod arch = arm64)": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world())}, pod("p", "1", "", withNodeSelector(corev1.LabelArchStable, "arm64")))
	},
	"Instance Type Selection / should schedule on one of the cheapest instances (prov arch = amd64)": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world(), requirements.New(corev1.LabelArchStable, corev1.NodeSelectorOpIn, "amd64"))}, pod("p", "1", ""))
	},
	"Instance Type Selection / should schedule on one of the cheapest instances (prov arch = arm64)": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world(), requirements.New(corev1.LabelArchStable, corev1.NodeSelectorOpIn, "arm64"))}, pod("p", "1", ""))
	},
	"Instance Type Selection / should schedule on one of the cheapest instances (pod zone = test-zone-2)": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world())}, pod("p", "1", "", withNodeSelector(zoneKey, "test-zone-2")))
	},
	"Instance Type Selection / should schedule on one of the cheapest instances (prov zone = test-zone-2)": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world(), requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-2"))}, pod("p", "1", ""))
	},
	"Instance Type Selection / should schedule on one of the cheapest instances (pod ct = spot)": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world())}, pod("p", "1", "", withNodeSelector(ctKey, spot)))
	},
	"Instance Type Selection / should schedule on one of the cheapest instances (prov ct = spot)": func(t *testing.T) {
		cheapestCase(t, []NodePool{pool("default", 0, world(), requirements.New(ctKey, corev1.NodeSelectorOpIn, spot))}, pod("p", "1", ""))
	},
	"Instance Type Selection / should schedule on an instance with enough resources": func(t *testing.T) {
		r := solve([]NodePool{pool("default", 0, world())}, pods(1, "p", "8", "10Gi"))
		expect(t, r, 1, 0, 1)
		if cpu := r.NewNodeClaims[0].InstanceType.Capacity.Cpu().Value(); cpu < 9 {
			t.Errorf("launches %s with %d CPUs for an 8-CPU pod and the reservation", r.NewNodeClaims[0].InstanceType.Name, cpu)
		}
	},
	"Instance Type Selection / MinValues / should schedule respecting the minValues from instance-type requirements": func(t *testing.T) {
		minValuesCase(t, requirements.New(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, "fake-4", "fake-8", "fake-12"), 2, true)
	},
	"Instance Type Selection / MinValues / schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the requirement": func(t *testing.T) {
		minValuesCase(t, requirements.New(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, "fake-4", "fake-8"), 3, false)
	},
	"Instance Type Selection / MinValues / should schedule respecting the minValues in Gt operator": func(t *testing.T) {
		minValuesCase(t, requirements.New("size", corev1.NodeSelectorOpGt, "2"), 3, true)
	},
	"Instance Type Selection / MinValues / scheduler should fail if the minValues in Gt operator is not satisfied": func(t *testing.T) {
		minValuesCase(t, requirements.New("size", corev1.NodeSelectorOpGt, "14"), 3, false)
	},
	"Instance Type Selection / MinValues / should schedule respecting the minValues in Lt operator": func(t *testing.T) {
		minValuesCase(t, requirements.New("size", corev1.NodeSelectorOpLt, "8"), 3, true)
	},
	"Instance Type Selection / MinValues / scheduler should fail if the minValues in Lt operator is not satisfied": func(t *testing.T) {
		minValuesCase(t, requirements.New("size", corev1.NodeSelectorOpLt, "3"), 3, false)
	},
}

// cheapestCase: the pod lands alone on a NodeClaim whose launch is the cheapest of its options.
func cheapestCase(t *testing.T, pools []NodePool, p *corev1.Pod) {
	t.Helper()
	r := solve(pools, []*corev1.Pod{p})
	expect(t, r, 1, 0, 1)
	nc := r.NewNodeClaims[0]
	for _, it := range nc.InstanceTypes {
		for _, o := range it.Offerings {
			if allows(nc.Requirements, zoneKey, o.Zone) && allows(nc.Requirements, ctKey, o.CapacityType) && o.Price < nc.Offering.Price {
				t.Errorf("launches %s at %.3f; %s %s in %s costs %.3f", nc.InstanceType.Name, nc.Offering.Price, it.Name, o.CapacityType, o.Zone, o.Price)
			}
		}
	}
}

func allows(reqs requirements.Requirements, key, value string) bool {
	r := reqs.Get(key)
	return r == nil || r.Has(value)
}

// minValuesCase: a NodePool requiring req with minValues launches a pod with at least that many
// distinct values among its options, or leaves it unschedulable when it cannot.
func minValuesCase(t *testing.T, req *requirements.Requirement, minValues int, schedules bool) {
	t.Helper()
	r := solve([]NodePool{pool("default", 0, world(), req.WithMinValues(&minValues))}, pods(1, "p", "1", ""))
	if !schedules {
		expect(t, r, 0, 1, 0)
		return
	}
	expect(t, r, 1, 0, 1)
	values := map[string]bool{}
	for _, it := range r.NewNodeClaims[0].InstanceTypes {
		values[it.Requirements.Get(req.Key).Any()] = true
	}
	if len(values) < minValues {
		t.Errorf("%d distinct %s values among the options, want at least %d", len(values), req.Key, minValues)
	}
}

// zoneCase: the pod lands alone on a NodeClaim in zone.
func zoneCase(t *testing.T, p *corev1.Pod, zone string) {
	t.Helper()
	r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{p})
	expect(t, r, 1, 0, 1)
	if z := r.NewNodeClaims[0].Offering.Zone; z != zone {
		t.Errorf("zone %q, want %s", z, zone)
	}
}

// readyNode is an initialized node in test-zone-1 with cpu allocatable and taints.
func readyNode(name, cpu string, taints []corev1.Taint) ExistingNode {
	return ExistingNode{Name: name, Initialized: true, Taints: taints,
		Labels:      map[string]string{corev1.LabelHostname: name, zoneKey: "test-zone-1", corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourcePods: resource.MustParse("110")}}
}

func withNodes(nodes ...ExistingNode) func(*Input) {
	return func(in *Input) { in.Nodes = nodes }
}

// integerCase: a pod requiring the integer "size" label with op and value lands on instance
// types whose size satisfies ok.
func integerCase(t *testing.T, op corev1.NodeSelectorOperator, value string, ok func(int) bool) {
	t.Helper()
	r := solve([]NodePool{pool("default", 0, world())}, []*corev1.Pod{pod("p", "100m", "", withRequired("size", op, value))})
	expect(t, r, 1, 0, 1)
	for _, it := range r.NewNodeClaims[0].InstanceTypes {
		var size int
		fmt.Sscan(it.Requirements.Get("size").Any(), &size)
		if !ok(size) {
			t.Errorf("instance type %s (size %d) is an option", it.Name, size)
		}
	}
}

// TestKarpenterSchedulingSuite runs the restated cases, each under its Karpenter name, and
// reports how many of Karpenter's cases are restated and pass.
func TestKarpenterSchedulingSuite(t *testing.T) {
	facts := upstream.Load(t)
	known := map[string]bool{}
	for _, c := range facts.SchedulingSuite {
		known[c.Name] = true
	}
	passed := 0
	for _, name := range slices.Sorted(maps.Keys(karpenterCases)) {
		if !known[name] {
			t.Errorf("%q is not a case of Karpenter %s's suites", name, facts.Version)
			continue
		}
		if t.Run(name, karpenterCases[name]) {
			passed++
		}
	}
	t.Logf("Karpenter %s provisioning and scheduling suites: %d cases (%d distinct names); %d restated here, %d pass",
		facts.Version, len(facts.SchedulingSuite), len(known), len(karpenterCases), passed)
}
