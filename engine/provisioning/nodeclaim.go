package provisioning

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// NodeClaimFor is the NodeClaim object for a planned NodeClaim, as Karpenter writes it: named
// after its NodePool, owned by it, carrying the labels the plan gave it, its template's
// annotations, taints and settings, the NodePool's hash, the requirements narrowed by the pods
// plus the instance types to choose from (cheapest first), the pods' requests, and the
// termination finalizer. A static NodePool's NodeClaim names no instance types and requests
// nothing.
func NodeClaimFor(np *karpv1.NodePool, nc *scheduling.NodeClaim) *karpv1.NodeClaim {
	reqs := nc.Requirements
	var types []string
	requests := total(nc.Requests, nc.DaemonSetOverhead)
	if np.IsStatic() {
		// As Karpenter: a static NodePool's NodeClaim carries its template alone, and the cloud
		// provider launches the cheapest instance type that meets it.
		requests = nil
	} else {
		for _, it := range nc.InstanceTypes {
			types = append(types, it.Name)
		}
	}
	labels := maps.Clone(nc.Labels)
	annotations := maps.Clone(np.Spec.Template.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[karpv1.NodePoolHashAnnotationKey] = karpv1.Hash(np)
	annotations[karpv1.NodePoolHashVersionAnnotationKey] = karpv1.NodePoolHashVersion
	spec := np.Spec.Template.Spec
	return &karpv1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: karpv1.SchemeGroupVersion.String(), Kind: karpv1.KindNodeClaim},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: np.Name + "-",
			Labels:       labels,
			Annotations:  annotations,
			Finalizers:   []string{karpv1.TerminationFinalizer},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: karpv1.SchemeGroupVersion.String(), Kind: karpv1.KindNodePool,
				Name: np.Name, UID: np.UID, BlockOwnerDeletion: ptr.To(true)}},
		},
		Spec: karpv1.NodeClaimSpec{
			Taints:                 slices.Clone(spec.Taints),
			StartupTaints:          slices.Clone(spec.StartupTaints),
			Requirements:           specRequirements(reqs, types),
			Resources:              karpv1.ResourceRequirements{Requests: requests},
			NodeClassRef:           spec.NodeClassRef.DeepCopy(),
			TerminationGracePeriod: spec.TerminationGracePeriod.DeepCopy(),
			ExpireAfter:            spec.ExpireAfter,
		},
	}
}

// specRequirements writes the NodeClaim's requirements: everything but the hostname
// placeholder, with the instance types narrowed to the options when there are any.
func specRequirements(reqs requirements.Requirements, types []string) []karpv1.NodeSelectorRequirementWithMinValues {
	if len(types) > 0 {
		reqs = reqs.Add(requirements.New(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, types...))
	}
	var out []karpv1.NodeSelectorRequirementWithMinValues
	for _, r := range reqs.Items() {
		if r.Key == corev1.LabelHostname {
			continue
		}
		for _, ns := range r.NodeSelector() {
			values := ns.Values
			if r.Key == corev1.LabelInstanceTypeStable && ns.Operator == corev1.NodeSelectorOpIn {
				values = types // cheapest first, as the cloud should try them
			}
			out = append(out, karpv1.NodeSelectorRequirementWithMinValues{Key: ns.Key, Operator: ns.Operator, Values: values, MinValues: r.MinValues})
		}
	}
	return out
}

func total(a, b corev1.ResourceList) corev1.ResourceList { return add(a, b) }

// limitCheck admits new NodeClaims only while their NodePool's limits hold against what its
// nodes hold now (LimitUsage) plus what this pass already created, each counted at its largest
// option (an unlaunched NodeClaim too, where Karpenter counts it only once launched: stricter,
// so that two passes cannot race past a limit).
type limitCheck struct {
	limits map[string]corev1.ResourceList
	used   map[string]corev1.ResourceList
}

func newLimitCheck(snap *state.Snapshot, cat *Catalog) *limitCheck {
	lc := &limitCheck{limits: map[string]corev1.ResourceList{}, used: LimitUsage(snap.Nodes, cat)}
	for name, pt := range cat.Pools {
		lc.limits[name] = corev1.ResourceList(pt.NodePool.Spec.Limits)
	}
	return lc
}

// admit returns "" and counts the NodeClaim, or says which limit it would break.
func (lc *limitCheck) admit(nc *scheduling.NodeClaim) string {
	largest := corev1.ResourceList{karpv1.ResourceNodes: *resource.NewQuantity(1, resource.DecimalSI)}
	for _, it := range nc.InstanceTypes {
		largest = maxOf(largest, it.Capacity)
	}
	after := add(lc.used[nc.NodePool], largest)
	var broken []string
	for name, limit := range lc.limits[nc.NodePool] {
		if q, ok := after[name]; ok && q.Cmp(limit) > 0 {
			broken = append(broken, fmt.Sprintf("%s %s of %s", name, q.String(), limit.String()))
		}
	}
	if len(broken) > 0 {
		slices.Sort(broken)
		return fmt.Sprintf("nodepool %q would exceed its limits with this nodeclaim (%s); its %d pods stay pending",
			nc.NodePool, strings.Join(broken, ", "), len(nc.Pods))
	}
	lc.used[nc.NodePool] = after
	return ""
}

// CreateNodeClaim writes the NodeClaim of a planned one of np through exec and puts it in the
// cluster state at once, as Karpenter's provisioner does: the next pass of any loop may come
// before its watch event, and would count without it (a second NodeClaim for the same pods, a
// replacement taken for failed). In a dry run it returns the executor's NotPerformed error.
func CreateNodeClaim(ctx context.Context, exec *executor.Executor, cluster *state.Cluster, np *karpv1.NodePool, nc *scheduling.NodeClaim, why string) (*karpv1.NodeClaim, error) {
	created, err := exec.CreateNodeClaim(ctx, NodeClaimFor(np, nc), why)
	if err != nil {
		return nil, err
	}
	cluster.Expect(created)
	return created, nil
}
