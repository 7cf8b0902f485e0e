package static

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Decision is what one static NodePool needs now.
type Decision struct {
	NodePool *karpv1.NodePool
	// Claims are its NodeClaims by where they stand.
	Claims state.Claims
	// Create is how many NodeClaims to create; Delete names the ones to delete, in order.
	Create int
	Delete []string
	// Held says why fewer are created than replicas ask for ("" when none are held back).
	Held string
}

// Decide returns a decision for every static NodePool that is not at its replicas. It creates
// only for a Ready NodePool, counts NodeClaims a disruption command is replacing as present
// (their replacements are on the way), and never goes past limits.nodes, counting every
// NodeClaim of the NodePool against it as Karpenter does.
func Decide(snap *state.Snapshot, now time.Time) []Decision {
	var out []Decision
	for _, np := range snap.NodePools {
		if !np.IsStatic() || np.DeletionTimestamp != nil {
			continue
		}
		d := Decision{NodePool: np, Claims: snap.ClaimsOf(np.Name)}
		running, disrupting := int64(len(d.Claims.Running)), int64(len(d.Claims.Disrupting))
		replicas := *np.Spec.Replicas
		switch {
		case running > replicas:
			d.Delete = surplus(d.Claims.Running, int(running-replicas), now)
		case running+disrupting < replicas:
			if ready := meta.FindStatusCondition(np.Status.Conditions, karpv1.ConditionTypeReady); ready == nil || ready.Status != metav1.ConditionTrue {
				if ready != nil { // no condition yet: its status is written within a second
					d.Held = fmt.Sprintf("NodePool %q is not Ready: %s", np.Name, ready.Message)
				}
				break
			}
			want, room := replicas-running, d.Claims.Room(np)
			d.Create = int(min(want, room))
			if room < want {
				limit := np.Spec.Limits[karpv1.ResourceNodes]
				d.Held = fmt.Sprintf("limits.nodes %s holds NodePool %q below its %d replicas (NodeClaims being replaced or deleted count too)",
					limit.String(), np.Name, replicas)
			}
		default:
			continue
		}
		out = append(out, d)
	}
	return out
}

// surplus picks n of a static NodePool's running NodeClaims to delete: those not launched yet
// first, then nodes running only DaemonSet pods, then by disruption cost, a node with a pod
// that must not be disrupted last.
func surplus(running []*state.Node, n int, now time.Time) []string {
	type ranked struct {
		name                   string
		unlaunched, empty, dnd bool
		cost                   float64
	}
	rs := make([]ranked, len(running))
	for i, sn := range running {
		r := ranked{name: sn.NodeClaim.Name, unlaunched: sn.NodeClaim.Status.ProviderID == ""}
		var moving []*corev1.Pod
		for _, p := range sn.Pods {
			r.dnd = r.dnd || pods.BlocksDisruption(p, now)
			if !pods.IsOwnedByDaemonSet(p) {
				moving = append(moving, p)
			}
		}
		r.empty = len(moving) == 0 && !r.dnd
		r.cost = disruption.DisruptionCost(moving, sn.NodeClaim, now)
		rs[i] = r
	}
	rank := func(r ranked) int {
		switch {
		case r.unlaunched:
			return 0
		case r.empty:
			return 1
		case !r.dnd:
			return 2
		}
		return 3
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.cost, b.cost), cmp.Compare(a.name, b.name))
	})
	out := make([]string, 0, n)
	for _, r := range rs[:n] {
		out = append(out, r.name)
	}
	return out
}
