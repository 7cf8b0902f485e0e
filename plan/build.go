package plan

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
	"github.com/nodepilot/nodepilot/kube/manifest"
)

// Problem is what Build makes of manifests.
type Problem struct {
	// Input is the solve's input.
	Input *scheduling.Input
	// Static are the nodes static NodePools would launch for their replicas; they are among the
	// input's nodes, so that pods go to them.
	Static []Static
	// Notes say what was left out or assumed.
	Notes []string
}

// Static is one node a static NodePool would launch.
type Static struct {
	Name      string
	NodeClaim *scheduling.NodeClaim
}

// Build turns loaded manifests into the solver's input. NodePools that cannot launch (their
// EC2NodeClass missing, being deleted) are left out with a note, and each pod that fits nowhere
// names them among its reasons. A static NodePool launches its replicas (those the manifests'
// nodes do not already hold, within limits.nodes), which pods may use, and nothing for pods.
// Offerings are limited to zones when it names any (the zones of the cluster planned for).
func Build(set *manifest.Set, cat *catalog.Catalog, opts scheduling.Options, zones []string) *Problem {
	in := &scheduling.Input{Options: opts, DaemonSets: set.DaemonSets,
		WellKnownLabels: sets.List(awsv1.WellKnownLabels())}
	pr := &Problem{Input: in}

	classes := map[string]*awsv1.EC2NodeClass{}
	for _, nc := range set.EC2NodeClasses {
		classes[nc.Name] = nc
	}
	classExists := func(name string) bool { return classes[name] != nil }
	types := map[string][]*cloudprovider.InstanceType{}
	for _, np := range set.NodePools {
		r, unlaunchable := scheduling.Unlaunchable(np, awsv1.EC2NodeClassGroupKind(), classExists)
		if unlaunchable {
			in.Unlaunchable = append(in.Unlaunchable, r)
			if r.Code != scheduling.ReasonStaticNodePool {
				pr.Notes = append(pr.Notes, fmt.Sprintf("%s; it cannot launch nodes and is left out (%s)", r.Message, r.Hint))
				continue
			}
		}
		ref := np.Spec.Template.Spec.NodeClassRef
		if _, ok := types[ref.Name]; !ok {
			types[ref.Name] = cat.InstanceTypes(catalog.Options{Options: instancetype.OptionsFor(classes[ref.Name]), Needs: instancetype.NeedsOf(classes[ref.Name]),
				Zones: zones})
		}
		if np.IsStatic() {
			pr.addStatic(np, types[ref.Name], set)
			continue
		}
		in.NodePools = append(in.NodePools, scheduling.FromNodePool(np, types[ref.Name], poolUsage(np.Name, set.Nodes)))
	}

	bound := map[string][]*corev1.Pod{}
	for _, p := range set.Pods {
		if p.Spec.NodeName != "" {
			bound[p.Spec.NodeName] = append(bound[p.Spec.NodeName], p)
			continue
		}
		in.Pods = append(in.Pods, p)
	}
	for _, n := range set.Nodes {
		in.Nodes = append(in.Nodes, existingNode(n, bound[n.Name]))
		delete(bound, n.Name)
	}
	switch {
	case len(set.PVCs)+len(set.PVs)+len(set.StorageClasses) > 0:
		in.Volumes = state.NewVolumes(set.Claims(), set.PVs, set.StorageClasses).Requirements
	case slices.ContainsFunc(in.Pods, pods.MountsClaim):
		pr.Notes = append(pr.Notes, "the manifests hold no PersistentVolumeClaim, PersistentVolume or StorageClass: pods with persistent volumes are placed as if their volumes could attach anywhere (add them to plan where the volumes can attach)")
	}
	for _, name := range slices.Sorted(maps.Keys(bound)) {
		pr.Notes = append(pr.Notes, fmt.Sprintf("%d pods are bound to node %q, which the manifests do not define; they are left out", len(bound[name]), name))
	}
	return pr
}

// addStatic plans the nodes a static NodePool lacks: its replicas less the manifests' nodes of
// it, within limits.nodes, each the launch its template alone would make.
func (pr *Problem) addStatic(np *karpv1.NodePool, types []*cloudprovider.InstanceType, set *manifest.Set) {
	have := int64(0)
	for _, n := range set.Nodes {
		if n.Labels[karpv1.NodePoolLabelKey] == np.Name {
			have++
		}
	}
	want := *np.Spec.Replicas - have
	if q, ok := np.Spec.Limits[karpv1.ResourceNodes]; ok && q.Value()-have < want {
		want = max(q.Value()-have, 0)
		pr.Notes = append(pr.Notes, fmt.Sprintf("NodePool %q is static (replicas: %d) but limits.nodes %s holds it at %d nodes",
			np.Name, *np.Spec.Replicas, q.String(), have+want))
	}
	if want <= 0 {
		return
	}
	nc := scheduling.StaticNodeClaim(np, types, set.DaemonSets, pr.Input.WellKnownLabels)
	if nc == nil {
		pr.Notes = append(pr.Notes, fmt.Sprintf("NodePool %q is static (replicas: %d) but none of its instance types has an offering; it launches nothing",
			np.Name, *np.Spec.Replicas))
		return
	}
	for i := range want {
		name := scheduling.StaticNodeName(np.Name, int(have+i+1))
		pr.Input.Nodes = append(pr.Input.Nodes, nc.AsNode(name))
		pr.Static = append(pr.Static, Static{Name: name, NodeClaim: nc})
	}
}

// poolUsage is the capacity a NodePool's existing nodes hold against its limits.
func poolUsage(pool string, nodes []*corev1.Node) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, n := range nodes {
		if n.Labels[karpv1.NodePoolLabelKey] != pool {
			continue
		}
		for name, q := range n.Status.Capacity {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
		nodes := out[karpv1.ResourceNodes]
		nodes.Add(*resource.NewQuantity(1, resource.DecimalSI)) // against limits.nodes
		out[karpv1.ResourceNodes] = nodes
	}
	return out
}

// existingNode describes a Node of the manifests with the pods bound to it. A node counts as
// initialized unless a taint says it is still starting.
func existingNode(n *corev1.Node, bound []*corev1.Pod) scheduling.ExistingNode {
	allocatable := n.Status.Allocatable
	if len(allocatable) == 0 {
		allocatable = n.Status.Capacity
	}
	requested := requestsOf(bound)
	requested[corev1.ResourcePods] = *resource.NewQuantity(int64(len(bound)), resource.DecimalSI)
	starting := slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
		return t.Key == karpv1.UnregisteredNoExecuteTaint().Key || t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable
	})
	labels := map[string]string{corev1.LabelHostname: n.Name}
	for k, v := range n.Labels {
		labels[k] = v
	}
	return scheduling.ExistingNode{Name: n.Name, Labels: labels, Taints: n.Spec.Taints, Allocatable: allocatable,
		Requested: requested, Pods: bound, Initialized: !starting}
}

// requestsOf sums what the pods request.
func requestsOf(ps []*corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, p := range ps {
		for name, q := range pods.Requests(p) {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	return out
}
