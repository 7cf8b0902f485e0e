package uitest

import (
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// world is what the generator made, for the journal and the provisioner's outcome.
type world struct {
	nodes   []*corev1.Node
	claims  []*karpv1.NodeClaim
	running []*corev1.Pod
	pending []*corev1.Pod
}

type generator struct {
	cfg Config
	rng *rand.Rand
	now time.Time
}

// deployments are the workloads pods belong to: namespace, name.
func deployments() [][2]string {
	return [][2]string{{"default", "inflate"}, {"shop", "web"}, {"shop", "api"}, {"batch", "worker"}}
}

func (g *generator) fill(c *state.Cluster) world {
	var w world
	for _, np := range nodePools(g.now) {
		c.UpdateNodePool(np)
	}
	for i := 0; i < g.cfg.Nodes; i++ {
		n, nc := g.node(i)
		c.UpdateNodeClaim(nc)
		w.claims = append(w.claims, nc)
		if n != nil {
			c.UpdateNode(n)
			w.nodes = append(w.nodes, n)
		}
	}
	for j := 0; j < g.cfg.Pods && len(w.nodes) > 0; j++ {
		p := g.pod(j, w.nodes[j%len(w.nodes)].Name)
		c.UpdatePod(p)
		w.running = append(w.running, p)
	}
	for k := 0; k < g.cfg.Pending; k++ {
		p := g.pendingPod(k)
		c.UpdatePod(p)
		w.pending = append(w.pending, p)
	}
	c.UpdatePDB(&policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", CreationTimestamp: metav1.NewTime(g.now.Add(-30 * 24 * time.Hour))},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromString("100%")),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	})
	if len(w.claims) > 4 {
		c.MarkForDeletion(w.claims[4].Name)
	}
	for _, k := range state.Kinds() {
		c.MarkSynced(k)
	}
	return w
}

// poolOf spreads nodes: six in ten on default, three on on-demand, one on gpu.
func poolOf(i int) string {
	switch r := i % 10; {
	case r < 6:
		return "default"
	case r < 9:
		return "on-demand"
	}
	return "gpu"
}

func (g *generator) node(i int) (*corev1.Node, *karpv1.NodeClaim) {
	pool := poolOf(i)
	capacity, types := "on-demand", []string{"m6i.xlarge", "m6i.2xlarge"}
	switch pool {
	case "default":
		types = []string{"c6i.large", "m6i.large", "m7g.large", "r6i.large", "c6i.xlarge", "m6i.xlarge"}
		if i%5 != 4 {
			capacity = "spot"
		}
	case "gpu":
		types = []string{"g5.xlarge"}
	}
	it, _ := findType(types[g.rng.IntN(len(types))])
	zone := zoneNames()[g.rng.IntN(3)]
	name := fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i/200, 10+i%200)
	claim := fmt.Sprintf("%s-%s", pool, g.suffix())
	id := fmt.Sprintf("aws:///%s/i-0%015x", zone, g.rng.Uint64()>>4)
	created := g.now.Add(-10*time.Minute - time.Duration(g.rng.IntN(48*60))*time.Minute)
	labels := map[string]string{
		karpv1.NodePoolLabelKey: pool, karpv1.CapacityTypeLabelKey: capacity, corev1.LabelTopologyZone: zone,
		corev1.LabelInstanceTypeStable: it.name, corev1.LabelArchStable: arch(it.name), corev1.LabelHostname: name,
	}
	capacityList := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(it.cpu, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(it.memGi<<30, resource.BinarySI), corev1.ResourcePods: *resource.NewQuantity(110, resource.DecimalSI)}
	alloc := corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(it.cpu*1000-80, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(it.memGi<<30-(600<<20), resource.BinarySI), corev1.ResourcePods: *resource.NewQuantity(110, resource.DecimalSI)}
	launching := i == g.cfg.Nodes-1 && g.cfg.Nodes >= 8
	nc := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claim, Labels: labels, CreationTimestamp: metav1.NewTime(created)},
		Spec: karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{it.name}}}},
		Status: karpv1.NodeClaimStatus{ProviderID: id, NodeName: name, Capacity: capacityList, Allocatable: alloc, ImageID: "ami-0123456789abcdef0",
			Conditions: conditions(created, karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized, karpv1.ConditionTypeReady)},
	}
	if launching {
		nc.Status = karpv1.NodeClaimStatus{Capacity: capacityList, Allocatable: alloc}
		nc.CreationTimestamp = metav1.NewTime(g.now.Add(-40 * time.Second))
		return nil, nc
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(created.Add(time.Minute))},
		Spec:       corev1.NodeSpec{ProviderID: id},
		Status: corev1.NodeStatus{Capacity: capacityList, Allocatable: alloc,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}}},
	}
	if pool == "gpu" {
		n.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}}
	}
	switch i {
	case 1:
		n.Spec.Unschedulable = true
	case 2:
		n.Status.Conditions[0] = corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown"}
	case 3:
		n.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	}
	return n, nc
}

func arch(instanceType string) string {
	if instanceType == "m7g.large" {
		return "arm64"
	}
	return "amd64"
}

func conditions(at time.Time, types ...string) []metav1.Condition {
	out := make([]metav1.Condition, len(types))
	for i, t := range types {
		out[i] = metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: metav1.NewTime(at.Add(time.Duration(i) * 20 * time.Second))}
	}
	return out
}

func (g *generator) suffix() string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = letters[g.rng.IntN(len(letters))]
	}
	return string(b)
}

func (g *generator) pod(j int, node string) *corev1.Pod {
	d := deployments()[j%len(deployments())]
	cpu := []string{"100m", "250m", "500m"}[g.rng.IntN(3)]
	mem := []string{"128Mi", "256Mi", "512Mi", "1Gi"}[g.rng.IntN(4)]
	p := podFor(d, "7d9f8c6b5", g.suffix(), cpu, mem, g.now.Add(-time.Duration(1+g.rng.IntN(47*60))*time.Minute))
	p.Spec.NodeName = node
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	if j == 5 {
		p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "app", RestartCount: 7,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}
	}
	return p
}

func (g *generator) pendingPod(k int) *corev1.Pod {
	cpu, mem := "4", "8Gi"
	if k%3 == 1 {
		cpu, mem = "1", "1536Mi"
	}
	p := podFor(deployments()[0], "5c6d7e8f9", g.suffix(), cpu, mem, g.now.Add(-time.Duration(20+k*7)*time.Second))
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: "0/12 nodes are available: 12 Insufficient cpu."}}
	return p
}

// podFor is a pod of a Deployment's ReplicaSet.
func podFor(d [2]string, hash, suffix, cpu, mem string, created time.Time) *corev1.Pod {
	rs := d[1] + "-" + hash
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: d[0], Name: rs + "-" + suffix, CreationTimestamp: metav1.NewTime(created),
			Labels:          map[string]string{"app": d[1], "pod-template-hash": hash},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, Controller: ptr(true)}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}},
	}
}

func ptr[T any](v T) *T { return &v }
