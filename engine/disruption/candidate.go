package disruption

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/lifecycle"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Reasons a node is not disrupted (journal.Entry.Reason of blocked entries).
const (
	BlockedNotInitialized     journal.Reason = "NotInitialized"
	BlockedNominated          journal.Reason = "Nominated"
	BlockedDisrupting         journal.Reason = "Disrupting"
	BlockedDoNotDisrupt       journal.Reason = "DoNotDisrupt"
	BlockedPDB                journal.Reason = "PDB"
	BlockedConsolidateAfter   journal.Reason = "ConsolidateAfter"
	BlockedPolicy             journal.Reason = "ConsolidationPolicy"
	BlockedBudget             journal.Reason = "Budget"
	BlockedNeedsReplacements  journal.Reason = "NeedsTwoReplacements"
	BlockedNoCheaperType      journal.Reason = "NoCheaperType"
	BlockedSpotToSpot         journal.Reason = "SpotToSpotDisabled"
	BlockedPodsCannotMove     journal.Reason = "PodsCannotReschedule"
	BlockedUnknownPrice       journal.Reason = "UnknownPrice"
	BlockedNodePool           journal.Reason = "NodePoolMissing"
	BlockedValidationRejected journal.Reason = "ValidationRejected"
	// BlockedStatic: a static NodePool's nodes are only replaced when drifted, one for one.
	BlockedStatic journal.Reason = "StaticNodePool"
	// BlockedUnmanaged: no NodeClaim manages the node, so nothing disrupts it.
	BlockedUnmanaged journal.Reason = "Unmanaged"
)

// Forbidden reports whether a blocked reason is a rule that forbids a disruption (a budget, a
// PodDisruptionBudget, do-not-disrupt, spot-to-spot off), as opposed to a state the node passes
// through (not initialized, nominated, consolidateAfter) or a finding that disrupting it would not
// pay. Operators look for the former among decisions; the latter stay in a node's explanation.
func Forbidden(reason journal.Reason) bool {
	switch reason {
	case BlockedBudget, BlockedPDB, BlockedDoNotDisrupt, BlockedSpotToSpot:
		return true
	}
	return false
}

// Candidate is a node disruption may take: managed, initialized, not nominated or already
// disrupting, with no pod that forbids it.
type Candidate struct {
	*state.Node
	NodePool     *karpv1.NodePool
	InstanceType *cloudprovider.InstanceType
	CapacityType string
	Zone         string
	// Price is what the node costs per hour now.
	Price float64
	// Reschedulable are the pods that must find another node.
	Reschedulable []*corev1.Pod
	// DisruptionCost orders candidates: cheapest to disrupt first.
	DisruptionCost float64
	// ConsolidatableAt is when consolidateAfter will have passed (zero: never).
	ConsolidatableAt time.Time
}

// block is why a node is no candidate, for the journal.
type block struct {
	reason  journal.Reason
	message string
	until   time.Time
	// pod is the pod whose do-not-disrupt annotation blocks, if that is the reason.
	pod *corev1.Pod
}

// candidate builds a Candidate from a state node, or says why the node cannot be one.
func candidate(sn *state.Node, snap *state.Snapshot, cat *provisioning.Catalog, pdbs *pdbIndex, now time.Time) (*Candidate, *block) {
	switch {
	case !sn.Managed() || sn.Node == nil:
		return nil, &block{reason: BlockedNotInitialized, message: "its node has not registered"}
	case sn.MarkedForDeletion:
		return nil, &block{reason: BlockedDisrupting, message: "it is already being disrupted or deleted"}
	case !sn.Initialized():
		return nil, &block{reason: BlockedNotInitialized, message: "it is not initialized yet"}
	case sn.Nominated(now):
		return nil, &block{reason: BlockedNominated, message: "the provisioner counts on it for pending pods", until: sn.NominatedUntil}
	}
	np := snap.NodePool(sn.NodePool())
	if np == nil {
		return nil, &block{reason: BlockedNodePool, message: fmt.Sprintf("its NodePool %q no longer exists", sn.NodePool())}
	}
	if v := sn.Node.Annotations[karpv1.DoNotDisruptAnnotationKey]; v == "true" {
		return nil, &block{reason: BlockedDoNotDisrupt, message: "the node is annotated karpenter.sh/do-not-disrupt"}
	}
	c := &Candidate{Node: sn, NodePool: np}
	for _, p := range sn.Pods {
		if pods.BlocksDisruption(p, now) {
			until, _, _ := pods.DoNotDisruptUntil(p)
			return nil, &block{reason: BlockedDoNotDisrupt, message: fmt.Sprintf("pod %s/%s is annotated karpenter.sh/do-not-disrupt", p.Namespace, p.Name), until: until, pod: p}
		}
		if !pods.IsRescheduled(p) {
			continue
		}
		if pdb, why := pdbs.blocking(p); why != "" {
			return nil, &block{reason: BlockedPDB, message: fmt.Sprintf("PodDisruptionBudget %s/%s %s (pod %s)", pdb.Namespace, pdb.Name, why, p.Name)}
		}
		c.Reschedulable = append(c.Reschedulable, p)
	}
	var ok bool
	if c.InstanceType, c.CapacityType, c.Zone, c.Price, ok = price(sn, np, cat); !ok {
		return nil, &block{reason: BlockedUnknownPrice, message: fmt.Sprintf("no price is known for %s %s in %s",
			c.CapacityType, sn.Labels()[corev1.LabelInstanceTypeStable], c.Zone)}
	}
	_, c.ConsolidatableAt = lifecycle.Consolidatable(np, sn.NodeClaim, lifecycle.LastPodEvent(sn), now)
	c.DisruptionCost = DisruptionCost(c.Reschedulable, sn.NodeClaim, now)
	return c, nil
}

// price finds a node's instance type, capacity type and zone, and what it costs per hour.
func price(sn *state.Node, np *karpv1.NodePool, cat *provisioning.Catalog) (*cloudprovider.InstanceType, string, string, float64, bool) {
	labels := sn.Labels()
	capacityType, zone := labels[karpv1.CapacityTypeLabelKey], labels[corev1.LabelTopologyZone]
	var it *cloudprovider.InstanceType
	if pt := cat.Pools[np.Name]; pt != nil {
		it = pt.ByName[labels[corev1.LabelInstanceTypeStable]]
	}
	offering, ok := cost.Offering(it, zone, capacityType)
	return it, capacityType, zone, offering.Price, ok
}

// evictionCost is what evicting one pod costs, as Karpenter weighs it: 1, raised or lowered by
// the pod's deletion cost and priority, within [-10, 10].
func evictionCost(p *corev1.Pod) float64 {
	c := 1.0
	if v, err := strconv.ParseFloat(p.Annotations[corev1.PodDeletionCost], 64); err == nil {
		c += v / math.Pow(2, 27)
	}
	if p.Spec.Priority != nil {
		c += float64(*p.Spec.Priority) / math.Pow(2, 25)
	}
	return math.Min(math.Max(c, -10), 10)
}

// DisruptionCost is what disrupting the pods costs, as Karpenter orders candidates: the sum of
// their eviction costs, scaled by how much of the node's life remains (a node about to expire
// costs little to disrupt).
func DisruptionCost(ps []*corev1.Pod, nc *karpv1.NodeClaim, now time.Time) float64 {
	cost := 0.0
	for _, p := range ps {
		cost += evictionCost(p)
	}
	if d := nc.Spec.ExpireAfter.Duration; d != nil && *d > 0 {
		left := nc.CreationTimestamp.Add(*d).Sub(now)
		cost *= math.Min(math.Max(float64(left)/float64(*d), 0), 1)
	}
	return cost
}

func sortByCost(cs []*Candidate) {
	slices.SortStableFunc(cs, func(a, b *Candidate) int {
		return cmp.Or(cmp.Compare(a.DisruptionCost, b.DisruptionCost), cmp.Compare(a.Name(), b.Name()))
	})
}

// pdbIndex answers which PodDisruptionBudget keeps a pod in place.
type pdbIndex struct {
	byNamespace map[string][]indexedPDB
}

type indexedPDB struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
}

func newPDBIndex(pdbs []*policyv1.PodDisruptionBudget) *pdbIndex {
	idx := &pdbIndex{byNamespace: map[string][]indexedPDB{}}
	for _, pdb := range pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			sel = labels.Nothing()
		}
		idx.byNamespace[pdb.Namespace] = append(idx.byNamespace[pdb.Namespace], indexedPDB{pdb, sel})
	}
	return idx
}

// blocking returns the budget that forbids evicting the pod now and why, or "" when none does.
// Two budgets on one pod forbid it too: the Eviction API refuses such pods.
func (idx *pdbIndex) blocking(p *corev1.Pod) (*policyv1.PodDisruptionBudget, string) {
	var matched []*policyv1.PodDisruptionBudget
	for _, e := range idx.byNamespace[p.Namespace] {
		if e.selector.Matches(labels.Set(p.Labels)) {
			matched = append(matched, e.pdb)
		}
	}
	switch {
	case len(matched) > 1:
		return matched[0], fmt.Sprintf("and %d other budgets select the pod, which the Eviction API refuses", len(matched)-1)
	case len(matched) == 1 && matched[0].Status.DisruptionsAllowed < 1:
		return matched[0], "allows no disruption now"
	}
	return nil, ""
}
