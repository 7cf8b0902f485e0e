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
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
	"github.com/nodepilot/nodepilot/kube/manifest"
)

// Build turns loaded manifests into the solver's input. NodePools that cannot launch (their
// EC2NodeClass missing, being deleted, static) are left out with a note, and each pod that fits
// nowhere names them among its reasons.
func Build(set *manifest.Set, cat *catalog.Catalog, opts scheduling.Options) (*scheduling.Input, []string) {
	in := &scheduling.Input{Options: opts, DaemonSets: set.DaemonSets,
		WellKnownLabels: sets.List(awsv1.WellKnownLabels())}
	var notes []string

	classes := map[string]*awsv1.EC2NodeClass{}
	for _, nc := range set.EC2NodeClasses {
		classes[nc.Name] = nc
	}
	classExists := func(name string) bool { return classes[name] != nil }
	types := map[string][]*cloudprovider.InstanceType{}
	for _, np := range set.NodePools {
		if r, ok := scheduling.Unlaunchable(np, classExists); ok {
			in.Unlaunchable = append(in.Unlaunchable, r)
			notes = append(notes, fmt.Sprintf("%s; it cannot launch nodes and is left out (%s)", r.Message, r.Hint))
			continue
		}
		ref := np.Spec.Template.Spec.NodeClassRef
		if _, ok := types[ref.Name]; !ok {
			types[ref.Name] = cat.InstanceTypes(catalog.Options{Options: instancetype.OptionsFor(classes[ref.Name])})
		}
		in.NodePools = append(in.NodePools, scheduling.FromNodePool(np, types[ref.Name], usage(np.Name, set.Nodes)))
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
	for _, name := range slices.Sorted(maps.Keys(bound)) {
		notes = append(notes, fmt.Sprintf("%d pods are bound to node %q, which the manifests do not define; they are left out", len(bound[name]), name))
	}
	return in, notes
}

// usage is the capacity a NodePool's existing nodes hold against its limits.
func usage(pool string, nodes []*corev1.Node) corev1.ResourceList {
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
	requested := corev1.ResourceList{}
	for _, p := range bound {
		for name, q := range pods.Requests(p) {
			sum := requested[name]
			sum.Add(q)
			requested[name] = sum
		}
	}
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
