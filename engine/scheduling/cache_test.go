package scheduling

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// TestCacheReusesOnlyWhatIsUnchanged runs a sequence of solves through one Cache: each must
// equal the same solve without a cache, and reuse the previous tables exactly when the NodePool's
// requirements, its instance type slice and the resources in play are the same.
func TestCacheReusesOnlyWhatIsUnchanged(t *testing.T) {
	types := syntheticTypes(8)
	gpuTypes := slices.Clone(types)
	gpu := *gpuTypes[7]
	gpu.Name, gpu.Capacity = "fake-gpu", corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	for k, v := range types[7].Capacity {
		gpu.Capacity[k] = v
	}
	gpuTypes[7] = &gpu
	daemon := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}}}
	gpuPod := pod("gpu", "1", "1Gi")
	gpuPod.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"] = resource.MustParse("1")
	zoneA := requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1")

	steps := []struct {
		name       string
		types      []*cloudprovider.InstanceType
		reqs       []*requirements.Requirement
		daemonSets []*appsv1.DaemonSet
		pods       []*corev1.Pod
		reused     bool
	}{
		{name: "the first prepare builds", types: types, pods: pods(3, "a", "1500m", "1Gi")},
		{name: "the same NodePool and slice reuse", types: types, pods: pods(5, "b", "3", "2Gi"), reused: true},
		{name: "a DaemonSet's overhead is taken from a reused table, not written into it", types: types,
			daemonSets: []*appsv1.DaemonSet{daemon}, pods: pods(3, "c", "1500m", "1Gi"), reused: true},
		{name: "and is gone again without the DaemonSet", types: types, pods: pods(3, "c", "1500m", "1Gi"), reused: true},
		{name: "a new slice of the same types rebuilds", types: slices.Clone(types), pods: pods(2, "d", "1", "1Gi")},
		{name: "a narrower requirement rebuilds", types: types, reqs: []*requirements.Requirement{zoneA}, pods: pods(2, "e", "1", "1Gi")},
		{name: "a new resource in play rebuilds", types: gpuTypes, pods: []*corev1.Pod{gpuPod}},
		{name: "only the latest prepare's tables are kept", types: types, pods: pods(1, "f", "1", "1Gi")},
	}
	var cache Cache
	var previous []*poolTables
	for _, step := range steps {
		in := &Input{NodePools: []NodePool{pool("default", 0, step.types, step.reqs...)}, Pods: step.pods, DaemonSets: step.daemonSets}
		want := placementAndTypes(Solve(in))
		in.Cache = &cache
		got := placementAndTypes(Solve(in))
		if !slices.Equal(got, want) {
			t.Errorf("%s: with the cache %v, without %v", step.name, got, want)
		}
		var current []*poolTables
		for _, pt := range cache.entries {
			current = append(current, pt)
		}
		if len(current) != 1 {
			t.Fatalf("%s: the cache holds %d tables, want the latest prepare's 1", step.name, len(current))
		}
		if reused := slices.Contains(previous, current[0]); reused != step.reused {
			t.Errorf("%s: reused %v, want %v", step.name, reused, step.reused)
		}
		previous = current
	}
}

// placementAndTypes lists each placed pod with the instance type and price of its NodeClaim.
func placementAndTypes(r *Results) []string {
	var out []string
	for _, nc := range r.NewNodeClaims {
		for _, p := range nc.Pods {
			out = append(out, p.Name+"@"+nc.InstanceType.Name+"/"+nc.Offering.Zone)
		}
	}
	for _, pe := range r.Unschedulable {
		out = append(out, pe.Pod.Name+"@unschedulable")
	}
	slices.Sort(out)
	return out
}
