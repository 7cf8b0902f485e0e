package enginetest

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
)

// Eviction is one call of Evict and the API's answer.
type Eviction struct {
	Time time.Time
	Pod  types.NamespacedName
	// Allowed is true when the pod's deletion started, false when a budget refused it.
	Allowed bool
	// PDB names the PodDisruptionBudget that covered the pod ("" when none did or the pod did
	// not need one: pending, finished or already terminating).
	PDB     string
	Message string
}

// Evict evicts a pod through the Eviction API. A pod that is Pending, finished or already
// terminating is deleted without consulting budgets, as the API server does. Otherwise the
// PodDisruptionBudget of its namespace that selects it (more than one is an internal error, as
// in Kubernetes) must allow one more disruption, computed as the disruption controller would
// at this moment (see Budget): a healthy pod may go when Healthy-1 >= Desired, an unhealthy one
// when Healthy >= Desired (or always with unhealthyPodEvictionPolicy AlwaysAllow). A refusal
// is a *state.EvictionRefusedError; an allowed eviction deletes the pod with its own grace
// period (the kubelet finishes it).
func (a *API) Evict(ctx context.Context, pod *corev1.Pod) error {
	_, err := call(ctx, a, OpEvict, func() (struct{}, error) { return struct{}{}, a.evict(pods.Key(pod)) })
	return err
}

func (a *API) evict(key types.NamespacedName) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	cur, err := a.pods.get(key)
	if err != nil {
		return err
	}
	record := Eviction{Time: a.clock.Now(), Pod: key, Allowed: true}
	if cur.Status.Phase == corev1.PodPending || pods.IsTerminal(cur) || pods.IsTerminating(cur) {
		a.evictions = append(a.evictions, record)
		return a.deletePodLocked(key, nil)
	}
	var covering []*policyv1.PodDisruptionBudget
	for _, pdb := range a.pdbs.items {
		if pdb.Namespace == cur.Namespace && selects(pdb, cur) {
			covering = append(covering, pdb)
		}
	}
	if len(covering) > 1 {
		return apierrors.NewInternalError(fmt.Errorf("this pod has more than one PodDisruptionBudget, which the eviction subresource does not support"))
	}
	if len(covering) == 1 {
		pdb := covering[0]
		record.PDB = pdb.Name
		b := a.budgetLocked(pdb)
		if !b.allows(pdb, isHealthy(cur)) {
			record.Allowed = false
			record.Message = fmt.Sprintf("Cannot evict pod as it would violate the pod's disruption budget. The disruption budget %s needs %d healthy pods and has %d currently",
				pdb.Name, b.Desired, b.Healthy)
			a.evictions = append(a.evictions, record)
			return &state.EvictionRefusedError{Pod: key.String(), Message: record.Message}
		}
	}
	a.evictions = append(a.evictions, record)
	return a.deletePodLocked(key, nil)
}

// Evictions returns every Evict call so far and its answer, oldest first.
func (a *API) Evictions() []Eviction {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.evictions)
}

// Budget is what a PodDisruptionBudget allows now, as the disruption controller computes it.
type Budget struct {
	// Expected is the scale the budget protects: for pods whose controller's scale is known
	// (SetScale, which the Env's Deployments call) the controller's replicas, and one for every
	// other selected pod that has not finished, terminating ones included (the conservative
	// reading: the controller will replace them).
	Expected int
	// Desired is how many pods must stay healthy: minAvailable, or Expected less
	// maxUnavailable, where a percentage is of Expected, rounded up.
	Desired int
	// Healthy counts the selected pods that are Running and Ready and not terminating.
	Healthy int
}

// PDBStatus computes what a PodDisruptionBudget allows now: Healthy-Desired disruptions when
// positive.
func (a *API) PDBStatus(namespace, name string) (Budget, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pdb, err := a.pdbs.get(types.NamespacedName{Namespace: namespace, Name: name})
	if err != nil {
		return Budget{}, err
	}
	return a.budgetLocked(pdb), nil
}

// budgetLocked counts a budget's pods; the caller holds the lock.
func (a *API) budgetLocked(pdb *policyv1.PodDisruptionBudget) Budget {
	var b Budget
	scaled := map[types.UID]bool{}
	for _, p := range a.pods.items {
		if p.Namespace != pdb.Namespace || !selects(pdb, p) || pods.IsTerminal(p) {
			continue
		}
		if isHealthy(p) {
			b.Healthy++
		}
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			if n, ok := a.scales[ref.UID]; ok {
				if !scaled[ref.UID] {
					scaled[ref.UID] = true
					b.Expected += n
				}
				continue
			}
		}
		b.Expected++
	}
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, b.Expected, true)
		if err != nil {
			maxUnavailable = 0
		}
		b.Desired = max(0, b.Expected-maxUnavailable)
	case pdb.Spec.MinAvailable != nil:
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, b.Expected, true)
		if err != nil {
			minAvailable = b.Expected
		}
		b.Desired = minAvailable
	}
	return b
}

// allows reports whether one more pod, healthy or not, may be disrupted.
func (b Budget) allows(pdb *policyv1.PodDisruptionBudget, healthy bool) bool {
	if healthy {
		return b.Healthy-1 >= b.Desired
	}
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
		return true
	}
	return b.Healthy >= b.Desired
}

// SetScale tells the API how many replicas the controller with this UID (a ReplicaSet, say)
// wants, which budgets read as the disruption controller reads a controller's scale.
func (a *API) SetScale(controller types.UID, replicas int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.scales[controller] = replicas
}

// selects reports whether a budget's selector matches a pod; a nil selector matches nothing,
// an empty one everything (policy/v1).
func selects(pdb *policyv1.PodDisruptionBudget, p *corev1.Pod) bool {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	return err == nil && sel.Matches(labels.Set(p.Labels))
}

// isHealthy reports whether a pod counts as healthy for budgets: Running, Ready, not terminating.
func isHealthy(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
