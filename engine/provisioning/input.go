package provisioning

import (
	"context"
	"slices"

	appsv1 "k8s.io/api/apps/v1"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Catalog is what the solve knows of each NodePool: the NodePool and the instance types its node
// class can launch, by name.
type Catalog struct {
	Pools map[string]*PoolTypes
	// Unlaunchable are the NodePools left out, each with why.
	Unlaunchable []scheduling.Reason
}

// PoolTypes are a NodePool's instance types.
type PoolTypes struct {
	NodePool *karpv1.NodePool
	Types    []*cloudprovider.InstanceType
	ByName   map[string]*cloudprovider.InstanceType
}

// LoadCatalog asks the cloud for the instance types of every NodePool that can launch, static
// ones included (they launch their replicas), and keeps why each other NodePool cannot launch
// for pods (see scheduling.Unlaunchable).
func LoadCatalog(ctx context.Context, cloud cloudprovider.CloudProvider, snap *state.Snapshot) *Catalog {
	c := &Catalog{Pools: map[string]*PoolTypes{}}
	classExists := func(name string) bool { return snap.NodeClass(name) != nil }
	for _, np := range snap.NodePools {
		if r, ok := scheduling.Unlaunchable(np, cloud.NodeClassKind(), classExists); ok {
			c.Unlaunchable = append(c.Unlaunchable, r)
			if r.Code != scheduling.ReasonStaticNodePool {
				continue
			}
		}
		types, err := cloud.InstanceTypes(ctx, np)
		if err != nil {
			c.Unlaunchable = append(c.Unlaunchable, scheduling.InstanceTypesFailed(np.Name, err))
			continue
		}
		pt := &PoolTypes{NodePool: np, Types: types, ByName: map[string]*cloudprovider.InstanceType{}}
		for _, it := range types {
			pt.ByName[it.Name] = it
		}
		c.Pools[np.Name] = pt
	}
	return c
}

// Problem builds the scheduling problem for pods over a snapshot: the NodePools with their limits
// against what their nodes hold, and every node not going away (nor in exclude) as existing
// capacity, including NodeClaims not yet registered, so that pods already planned onto them are
// not planned again.
func Problem(snap *state.Snapshot, cat *Catalog, podsToPlace []*corev1.Pod, opts scheduling.Options, wellKnown []string, exclude map[string]bool) *scheduling.Input {
	in := &scheduling.Input{Pods: podsToPlace, DaemonSets: snap.DaemonSets, Options: opts, WellKnownLabels: wellKnown,
		Unlaunchable: cat.Unlaunchable, Volumes: snap.Volumes.Requirements, Requests: snap.Requests}
	usage := LimitUsage(snap.Nodes, cat)
	names := make([]string, 0, len(cat.Pools))
	for name := range cat.Pools {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if pt := cat.Pools[name]; !pt.NodePool.IsStatic() {
			in.NodePools = append(in.NodePools, scheduling.FromNodePool(pt.NodePool, pt.Types, usage[name]))
		}
	}
	for _, sn := range snap.Nodes {
		if sn.MarkedForDeletion || exclude[sn.Name()] {
			continue
		}
		if en, ok := existing(sn, cat, snap); ok {
			in.Nodes = append(in.Nodes, en)
		}
	}
	return in
}

// Replan is the problem of placing every pod again from nothing, as a fleet consolidated to its
// best would hold them: the pods a drain of the dynamic NodePools' nodes would move and the
// pending pods, over every other node, with nothing yet counted against the NodePools' limits.
// Right-sizing prices requests with it.
func Replan(snap *state.Snapshot, cat *Catalog, opts scheduling.Options, wellKnown []string) *scheduling.Input {
	exclude := map[string]bool{}
	var ps []*corev1.Pod
	for _, sn := range snap.Nodes {
		pt, ok := cat.Pools[sn.NodePool()]
		if !ok || pt.NodePool.IsStatic() {
			continue
		}
		exclude[sn.Name()] = true
		for _, p := range sn.Pods {
			if pods.IsRescheduled(p) {
				ps = append(ps, p)
			}
		}
	}
	for _, p := range snap.Pods {
		if pods.IsProvisionable(p) {
			ps = append(ps, p)
		}
	}
	in := Problem(snap, cat, ps, opts, wellKnown, exclude)
	for i := range in.NodePools {
		in.NodePools[i].Usage = nil
	}
	return in
}

// LimitUsage is what nodes hold against their NodePools' limits, by NodePool: the Capacity of
// those that count toward one (state.Node.UsageOf, Karpenter's rule: none marked for deletion).
func LimitUsage(nodes []*state.Node, cat *Catalog) map[string]corev1.ResourceList {
	usage := map[string]corev1.ResourceList{}
	for _, sn := range nodes {
		if pool := sn.UsageOf(); pool != "" {
			usage[pool] = add(usage[pool], Capacity(sn, cat))
		}
	}
	return usage
}

// Capacity is what a node holds against its NodePool's limits: its capacity, or before it
// launched, the largest of its NodeClaim's instance type options.
func Capacity(sn *state.Node, cat *Catalog) corev1.ResourceList {
	out := corev1.ResourceList{}
	if c := sn.Capacity(); len(c) > 0 {
		out = c.DeepCopy()
	} else {
		for _, it := range options(sn, cat) {
			out = maxOf(out, it.Capacity)
		}
	}
	out[karpv1.ResourceNodes] = *resource.NewQuantity(1, resource.DecimalSI) // against limits.nodes
	return out
}

// options are the instance types a NodeClaim may launch, by its instance-type requirement.
func options(sn *state.Node, cat *Catalog) []*cloudprovider.InstanceType {
	if sn.NodeClaim == nil {
		return nil
	}
	pt := cat.Pools[sn.NodePool()]
	if pt == nil {
		return nil
	}
	reqs := requirements.FromNodeSelector(nodeSelector(sn.NodeClaim.Spec.Requirements))
	var out []*cloudprovider.InstanceType
	for _, it := range pt.Types {
		if it.Requirements.Intersects(reqs) == nil {
			out = append(out, it)
		}
	}
	return out
}

func nodeSelector(reqs []karpv1.NodeSelectorRequirementWithMinValues) []corev1.NodeSelectorRequirement {
	out := make([]corev1.NodeSelectorRequirement, len(reqs))
	for i, r := range reqs {
		out[i] = corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values}
	}
	return out
}

// existing describes a node to the solver. A NodeClaim that has not launched yet counts with the
// smallest allocatable of its options and the requests it was created for.
func existing(sn *state.Node, cat *Catalog, snap *state.Snapshot) (scheduling.ExistingNode, bool) {
	labels := map[string]string{}
	if sn.NodeClaim != nil {
		for _, r := range sn.NodeClaim.Spec.Requirements {
			if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
				labels[r.Key] = r.Values[0]
			}
		}
	}
	for k, v := range sn.Labels() {
		labels[k] = v
	}
	if _, ok := labels[corev1.LabelHostname]; !ok {
		labels[corev1.LabelHostname] = sn.Name()
	}
	en := scheduling.ExistingNode{Name: sn.Name(), Labels: labels, Taints: schedulingTaints(sn),
		Allocatable: sn.Allocatable(), Pods: sn.Pods, Initialized: sn.Initialized()}
	if len(en.Allocatable) == 0 {
		opts := options(sn, cat)
		if len(opts) == 0 {
			return en, false
		}
		en.Allocatable = smallestAllocatable(opts)
	}
	requested := corev1.ResourceList{}
	for _, p := range sn.Pods {
		addTo(requested, snap.Requests(p))
	}
	requested[corev1.ResourcePods] = *resource.NewQuantity(int64(len(sn.Pods)), resource.DecimalSI)
	// A node that has not registered runs no pod yet; of what it was created for, only its
	// DaemonSet pods will come on their own. The pods it was planned for are still pending and
	// are placed again by this solve.
	if sn.Node == nil {
		requested = add(requested, daemonOverhead(snap.DaemonSets, labels, en.Taints))
	}
	en.Requested = requested
	return en, true
}

// daemonOverhead sums the requests of the DaemonSet pods that would run on a node with these
// labels and taints.
func daemonOverhead(daemonSets []*appsv1.DaemonSet, labels map[string]string, taints []corev1.Taint) corev1.ResourceList {
	out := corev1.ResourceList{}
	nodeReqs := requirements.FromLabels(labels)
	for _, ds := range daemonSets {
		spec := ds.Spec.Template.Spec
		if !tolerated(spec.Tolerations, taints) {
			continue
		}
		podReqs := requirements.FromLabels(spec.NodeSelector)
		if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			if terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms; len(terms) > 0 {
				podReqs = podReqs.Merge(requirements.FromNodeSelector(terms[0].MatchExpressions))
			}
		}
		if nodeReqs.Compatible(podReqs, func(string) bool { return false }) != nil {
			continue
		}
		pod := &corev1.Pod{Spec: spec}
		out = add(out, pods.Requests(pod))
		one := out[corev1.ResourcePods]
		one.Add(*resource.NewQuantity(1, resource.DecimalSI))
		out[corev1.ResourcePods] = one
	}
	return out
}

// tolerated reports whether tolerations cover every NoSchedule and NoExecute taint.
func tolerated(tolerations []corev1.Toleration, taints []corev1.Taint) bool {
	return pods.UntoleratedTaint(tolerations, taints, pods.Repels) == nil
}

// schedulingTaints are the taints that will block pods once the node is up: before it is
// initialized, the ephemeral ones (not ready, unregistered) and its startup taints do not count.
func schedulingTaints(sn *state.Node) []corev1.Taint {
	taints := sn.Taints()
	if sn.Initialized() {
		return taints
	}
	var startup []corev1.Taint
	if sn.NodeClaim != nil {
		startup = sn.NodeClaim.Spec.StartupTaints
	}
	return slices.DeleteFunc(slices.Clone(taints), func(t corev1.Taint) bool {
		return isEphemeral(t) || slices.ContainsFunc(startup, func(s corev1.Taint) bool { return s.MatchTaint(&t) })
	})
}

func isEphemeral(t corev1.Taint) bool {
	switch t.Key {
	case corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, "node.cloudprovider.kubernetes.io/uninitialized",
		karpv1.UnregisteredNoExecuteTaint().Key:
		return true
	}
	return false
}

func smallestAllocatable(types []*cloudprovider.InstanceType) corev1.ResourceList {
	out := types[0].Allocatable()
	for _, it := range types[1:] {
		alloc := it.Allocatable()
		for name, q := range out {
			if a, ok := alloc[name]; !ok {
				delete(out, name)
			} else if a.Cmp(q) < 0 {
				out[name] = a
			}
		}
	}
	return out
}

func add(a, b corev1.ResourceList) corev1.ResourceList {
	out := a.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	addTo(out, b)
	return out
}

// addTo adds b to sum in place: a node's requests add up pod by pod without a copy per pod.
func addTo(sum, b corev1.ResourceList) {
	for name, q := range b {
		total := sum[name]
		total.Add(q)
		sum[name] = total
	}
}

func maxOf(a, b corev1.ResourceList) corev1.ResourceList {
	out := a.DeepCopy()
	for name, q := range b {
		if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
			out[name] = q
		}
	}
	return out
}
