package enginetest

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// The checks below return nil or an error naming every violation; tests decide what to do.
// CheckInvariants groups those that must hold at every instant, CheckConverged those that must
// hold once the autoscaler has caught up.

// CheckInvariants runs the checks that hold at any instant: CheckOneInstancePerNodeClaim and
// CheckNodePoolLimits.
func (e *Env) CheckInvariants() error {
	return errors.Join(e.CheckOneInstancePerNodeClaim(), e.CheckNodePoolLimits())
}

// CheckConverged runs the checks that hold once the autoscaler has caught up: the invariants,
// no orphan instance, every launched NodeClaim backed by a running instance, no disrupted taint
// left and every pod running.
func (e *Env) CheckConverged() error {
	return errors.Join(e.CheckInvariants(), e.CheckNoOrphans(), e.CheckNodeClaimsHaveInstances(),
		e.CheckNoDisruptedTaints(), e.CheckPodsRunning())
}

// CheckOneInstancePerNodeClaim fails when the cloud launched more than one instance for a
// NodeClaim name.
func (e *Env) CheckOneInstancePerNodeClaim() error {
	launches := e.Cloud.Launches()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(launches)) {
		if n := launches[name]; n > 1 {
			errs = append(errs, fmt.Errorf("nodeclaim %s: %d instances launched", name, n))
		}
	}
	return errors.Join(errs...)
}

// CheckNoOrphans fails for every running instance whose NodeClaim (the same name and UID) no
// longer exists.
func (e *Env) CheckNoOrphans() error {
	claims := map[string]string{}
	for _, nc := range e.API.nodeClaimsShared() {
		claims[nc.Name] = string(nc.UID)
	}
	var errs []error
	for _, inst := range e.Cloud.Instances() {
		if uid, ok := claims[inst.NodeClaim]; inst.Running() && (!ok || uid != inst.NodeClaimUID) {
			errs = append(errs, fmt.Errorf("instance %s of nodeclaim %s runs without its nodeclaim", inst.ID, inst.NodeClaim))
		}
	}
	return errors.Join(errs...)
}

// CheckNodeClaimsHaveInstances fails for every NodeClaim that recorded a provider ID, is not
// being deleted, and whose instance is not running.
func (e *Env) CheckNodeClaimsHaveInstances() error {
	var errs []error
	for _, nc := range e.API.nodeClaimsShared() {
		if nc.Status.ProviderID == "" || nc.DeletionTimestamp != nil {
			continue
		}
		if inst, ok := e.Cloud.Instance(nc.Status.ProviderID); !ok || !inst.Running() {
			errs = append(errs, fmt.Errorf("nodeclaim %s: its instance %s is not running", nc.Name, nc.Status.ProviderID))
		}
	}
	return errors.Join(errs...)
}

// CheckNoDisruptedTaints fails for every node carrying karpenter.sh/disrupted while neither it
// nor its NodeClaim is being deleted: a taint a crashed or abandoned disruption left behind.
// Call it when no disruption should be under way.
func (e *Env) CheckNoDisruptedTaints() error {
	deleting := map[string]bool{}
	for _, nc := range e.API.nodeClaimsShared() {
		if nc.DeletionTimestamp != nil && nc.Status.ProviderID != "" {
			deleting[nc.Status.ProviderID] = true
		}
	}
	var errs []error
	for _, n := range e.API.nodesShared() {
		if n.DeletionTimestamp == nil && !deleting[n.Spec.ProviderID] && hasTaint(n.Spec.Taints, karpv1.DisruptedNoScheduleTaint()) {
			errs = append(errs, fmt.Errorf("node %s: stale %s taint", n.Name, karpv1.DisruptedTaintKey))
		}
	}
	return errors.Join(errs...)
}

// CheckNodePoolLimits fails for every NodePool whose NodeClaims' capacity (as launched) exceeds
// one of its limits. As Karpenter's limits, it leaves out the NodeClaims on their way out: being
// deleted, or taken by a disruption command (whose replacements may launch meanwhile).
func (e *Env) CheckNodePoolLimits() error {
	leaving := map[string]bool{}
	for _, sn := range e.Cluster.Snapshot().Nodes {
		if sn.NodeClaim != nil && sn.MarkedForDeletion {
			leaving[sn.NodeClaim.Name] = true
		}
	}
	used := map[string]corev1.ResourceList{}
	for _, nc := range e.API.nodeClaimsShared() {
		if nc.DeletionTimestamp != nil || leaving[nc.Name] {
			continue
		}
		pool := nc.Labels[karpv1.NodePoolLabelKey]
		if used[pool] == nil {
			used[pool] = corev1.ResourceList{}
		}
		for name, q := range nc.Status.Capacity {
			sum := used[pool][name]
			sum.Add(q)
			used[pool][name] = sum
		}
	}
	var errs []error
	for _, np := range e.API.nodePoolsShared() {
		for _, name := range slices.Sorted(maps.Keys(np.Spec.Limits)) {
			limit := np.Spec.Limits[name]
			if q, ok := used[np.Name][name]; ok && q.Cmp(limit) > 0 {
				errs = append(errs, fmt.Errorf("nodepool %s: %s %s over its limit %s", np.Name, name, q.String(), limit.String()))
			}
		}
	}
	return errors.Join(errs...)
}

// CheckPodsRunning fails for every pod that is neither finished, terminating nor Running.
func (e *Env) CheckPodsRunning() error {
	var errs []error
	for _, p := range e.API.podsShared() {
		if pods.IsTerminal(p) || pods.IsTerminating(p) || p.Status.Phase == corev1.PodRunning {
			continue
		}
		where := "not scheduled"
		if p.Spec.NodeName != "" {
			where = "on " + p.Spec.NodeName
		}
		errs = append(errs, fmt.Errorf("pod %s/%s is %s (%s)", p.Namespace, p.Name, p.Status.Phase, where))
	}
	return errors.Join(errs...)
}
