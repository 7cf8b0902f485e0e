package scheduling

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// Input is the snapshot a solve works on. Solve never modifies it.
type Input struct {
	// NodePools may launch new NodeClaims; the highest weight is tried first.
	NodePools []NodePool
	// Unlaunchable are the NodePools that cannot launch at all (see Unlaunchable), with why: each
	// pod that fits nowhere lists them, so a pod whose only NodePool is broken says so.
	Unlaunchable []Reason
	// Nodes are the existing nodes and in-flight NodeClaims pods may go to, with the pods already
	// bound to them (which count for topology, affinity and host ports).
	Nodes []ExistingNode
	// Pods are the pods to place.
	Pods []*corev1.Pod
	// DaemonSets add their pods' requests to every new node they would run on.
	DaemonSets []*appsv1.DaemonSet
	// Volumes, when set, gives the node requirements a pod's volumes add (state.Volumes), or why
	// the pod cannot be placed (a claim, volume or class it needs is missing). Like Karpenter's
	// volume topology, they narrow the nodes a pod may use, not its node affinity: topology
	// spread counts nodes as the pod's own constraints say.
	Volumes func(*corev1.Pod) ([]corev1.NodeSelectorRequirement, error)
	// Requests, when set, gives what a pod requests (pods.Requests; state.Snapshot.Requests keeps
	// them), where a solve would otherwise compute them again for every pod.
	Requests func(*corev1.Pod) corev1.ResourceList
	// NamespaceLabels are the labels of each namespace, for affinity terms with a namespaceSelector.
	NamespaceLabels map[string]map[string]string
	// WellKnownLabels are the labels the cloud puts on every node it launches (beyond Kubernetes'
	// and Karpenter's own), which a pod may ask for even where a NodePool does not mention them.
	WellKnownLabels []string
	Options         Options
	// Cache, when set, lets Prepare reuse what an earlier Prepare derived from the same
	// NodePools and instance types.
	Cache *Cache
}

// NodePool is what a NodePool contributes to a solve, resolved against its node class.
type NodePool struct {
	Name   string
	Weight int32
	// Requirements are the NodePool's requirements (with minValues), its template labels as
	// single-valued requirements, and karpenter.sh/nodepool.
	Requirements  requirements.Requirements
	Labels        map[string]string
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	// Limits cap the capacity the NodePool may hold; Usage is the capacity it holds now.
	Limits corev1.ResourceList
	Usage  corev1.ResourceList
	// InstanceTypes are the types its node class can launch.
	InstanceTypes []*cloudprovider.InstanceType
}

// ExistingNode is a node, or a NodeClaim not yet registered, that pods may be placed on.
type ExistingNode struct {
	Name   string
	Labels map[string]string
	// Taints that block scheduling now; for an in-flight NodeClaim, its taints without the
	// startup taints.
	Taints []corev1.Taint
	// Allocatable is what pods may use; Requested is what bound pods (and the DaemonSet pods
	// the node will run) already take.
	Allocatable corev1.ResourceList
	Requested   corev1.ResourceList
	// Pods are bound to the node.
	Pods        []*corev1.Pod
	Initialized bool
}

// DefaultOptions are Karpenter's: soft constraints respected until they must be relaxed, and
// NodeClaims packed as Karpenter packs them.
func DefaultOptions() Options {
	return Options{PreferencePolicy: PreferencesRespect, Packing: PackingKarpenter}
}

// DefaultPriceCliff is the PriceCliff nodepilot provisions with. In the embedded catalog's spot
// market, a NodeClaim of pods asking 2 GiB per CPU that outgrows a c8i.96xlarge's memory fits
// only an m8i.96xlarge or larger next: 1.96 times the price for the same 384 CPUs. Between the
// sizes of one family the ratio stays near 1.
const DefaultPriceCliff = 1.5

// Packing says how a planned NodeClaim takes pods.
type Packing string

// Packings.
const (
	// PackingKarpenter: a NodeClaim takes a pod while any of its instance types still holds all
	// its pods, as Karpenter's scheduler does; the launch then picks the cheapest of those types.
	// NodeClaims end on large types, often poor value for their pods, unless Options.PriceCliff
	// stops them.
	PackingKarpenter Packing = "Karpenter"
	// PackingCost: a NodeClaim grows into a larger type only while that type stays good value for
	// pods shaped like its own; otherwise the pod opens another NodeClaim. On the realistic
	// 10,000-pod plan it costs 1.14x the fractional optimum where PackingKarpenter costs 2.2x
	// (1.36x with DefaultPriceCliff).
	PackingCost Packing = "Cost"
)

// PreferencePolicy says what to do with soft constraints.
type PreferencePolicy string

// Preference policies, as Karpenter's --preference-policy.
const (
	// PreferencesRespect treats preferences as requirements, relaxing them one at a time, in
	// Karpenter's order, for a pod that fits nowhere.
	PreferencesRespect PreferencePolicy = "Respect"
	// PreferencesIgnore drops preferences before placing pods.
	PreferencesIgnore PreferencePolicy = "Ignore"
)

// DefaultMaxInstanceTypes is how many instance types a NodeClaim keeps, cheapest first.
const DefaultMaxInstanceTypes = 60

// Options tune a solve.
type Options struct {
	PreferencePolicy PreferencePolicy
	// Packing says how planned NodeClaims take pods (default PackingKarpenter).
	Packing Packing
	// PriceCliff, when above 1, keeps a NodeClaim from growing into a type that would cost this
	// many times its current type for pods shaped like its own (see rates.filled): the pod opens
	// another NodeClaim instead. 0 grows it into whatever type still holds its pods, as Karpenter
	// does.
	PriceCliff float64
	// MaxInstanceTypes caps each NodeClaim's options (default 60).
	MaxInstanceTypes int
	// Deadline, when set, stops the solve; pods not yet placed are reported unschedulable with
	// reason SolveTimedOut, and what was planned stands.
	Deadline time.Time
	// Progress, when set, is told as a solve runs how many pods wait in its queue and how long
	// it has run, and once more with done when it ends.
	Progress func(queued int, ran time.Duration, done bool)
}
