package scheduling

import (
	"fmt"
	"strconv"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

const (
	zoneKey = corev1.LabelTopologyZone
	ctKey   = karpv1.CapacityTypeLabelKey
	spot    = karpv1.CapacityTypeSpot
	od      = karpv1.CapacityTypeOnDemand
)

// syntheticTypes builds the instance types of Karpenter's scheduling benchmark: type i has i+1
// vCPUs, 2(i+1) GiB, 10(i+1) pods, costs 0.1 per vCPU plus 0.1 per GiB, is offered as spot in
// zones 1-2 and on-demand in zones 1-3, and reserves 100m CPU and 10Mi.
func syntheticTypes(n int) []*cloudprovider.InstanceType {
	out := make([]*cloudprovider.InstanceType, n)
	for i := range n {
		cpu := int64(i + 1)
		price := 0.1*float64(cpu) + 0.1*float64(2*cpu)
		var offerings cloudprovider.Offerings
		for _, z := range []string{"test-zone-1", "test-zone-2", "test-zone-3"} {
			offerings = append(offerings, cloudprovider.Offering{Zone: z, CapacityType: od, Price: price, Available: true})
			if z != "test-zone-3" {
				offerings = append(offerings, cloudprovider.Offering{Zone: z, CapacityType: spot, Price: price * 0.7, Available: true})
			}
		}
		name := fmt.Sprintf("fake-%d", cpu)
		out[i] = &cloudprovider.InstanceType{
			Name: name,
			Requirements: requirements.FromLabels(map[string]string{
				corev1.LabelInstanceTypeStable: name,
				corev1.LabelArchStable:         "amd64",
				corev1.LabelOSStable:           "linux",
				"size":                         strconv.FormatInt(cpu, 10),
			}).Add(
				requirements.New(zoneKey, corev1.NodeSelectorOpIn, offerings.Zones()...),
				requirements.New(ctKey, corev1.NodeSelectorOpIn, spot, od),
			),
			Offerings: offerings,
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(2*cpu<<30, resource.BinarySI),
				corev1.ResourcePods:   *resource.NewQuantity(10*cpu, resource.DecimalSI),
			},
			Overhead: cloudprovider.Overhead{KubeReserved: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("10Mi"),
			}},
		}
	}
	return out
}

// pool builds a NodePool over the given types with optional requirements.
func pool(name string, weight int32, its []*cloudprovider.InstanceType, reqs ...*requirements.Requirement) NodePool {
	return NodePool{
		Name:          name,
		Weight:        weight,
		Requirements:  requirements.Of(append(reqs, requirements.New(karpv1.NodePoolLabelKey, corev1.NodeSelectorOpIn, name))...),
		InstanceTypes: its,
	}
}

type podOption func(*corev1.Pod)

// pod builds a pending pod with CPU and memory requests ("" for none).
func pod(name, cpu, memory string, opts ...podOption) *corev1.Pod {
	requests := corev1.ResourceList{}
	if cpu != "" {
		requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		requests[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests}}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withLabels(kv ...string) podOption {
	return func(p *corev1.Pod) {
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withNodeSelector(kv ...string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.NodeSelector = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func withToleration(key, value string, effect corev1.TaintEffect) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: effect})
	}
}

func withSpread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, selector map[string]string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
			LabelSelector: &metav1.LabelSelector{MatchLabels: selector},
		})
	}
}

func affinity(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

func withPodAffinity(key string, selector map[string]string) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}})
	}
}

func withAntiAffinity(key string, selector map[string]string) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}})
	}
}

func withPreferredAntiAffinity(key string, weight int32, selector map[string]string) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}}})
	}
}

func withPreferredNodeAffinity(weight int32, key string, op corev1.NodeSelectorOperator, values ...string) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}})
	}
}

func withRequiredNodeAffinityTerms(terms ...[]corev1.NodeSelectorRequirement) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		sel := &corev1.NodeSelector{}
		for _, t := range terms {
			sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: t})
		}
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	}
}

func withHostPort(port int32) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port})
	}
}

func pods(n int, prefix, cpu, memory string, opts ...podOption) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range n {
		out[i] = pod(fmt.Sprintf("%s-%d", prefix, i), cpu, memory, opts...)
	}
	return out
}

// placement maps each placed pod's name to the hostname of its NodeClaim or the name of its node.
func placement(r *Results) map[string]string {
	out := map[string]string{}
	for _, nc := range r.NewNodeClaims {
		for _, p := range nc.Pods {
			out[p.Name] = nc.Hostname
		}
	}
	for _, n := range r.ExistingNodes {
		for _, p := range n.Pods {
			out[p.Name] = n.Name
		}
	}
	return out
}

// zoneOf returns the single zone a NodeClaim is pinned to, or "".
func zoneOf(nc *NodeClaim) string {
	if r := nc.Requirements.Get(zoneKey); r != nil && r.Len() == 1 {
		return r.Values()[0]
	}
	return ""
}

func reasonCodes(pe *PodError) map[string]string {
	out := map[string]string{}
	for _, r := range pe.Reasons {
		out[r.NodePool] = r.Code
	}
	return out
}
