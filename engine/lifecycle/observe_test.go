package lifecycle

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

var t0 = time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)

// after is a NillableDuration of d; never is "Never".
func after(d time.Duration) karpv1.NillableDuration { return karpv1.NillableDuration{Duration: &d} }

var never = karpv1.NillableDuration{Never: true}

// initialized is a NodeClaim with Initialized True since at (none if at is zero).
func initialized(at time.Time) *karpv1.NodeClaim {
	nc := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "nc", CreationTimestamp: metav1.NewTime(t0)}}
	if !at.IsZero() {
		nc.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)}}
	}
	return nc
}

// TestConsolidatable: consolidateAfter counts from the last pod event; Never, a static NodePool
// and a NodeClaim not initialized are never consolidatable (and have no time at which they will be).
func TestConsolidatable(t *testing.T) {
	pool := func(d karpv1.NillableDuration, replicas *int64) *karpv1.NodePool {
		np := &karpv1.NodePool{}
		np.Spec.Disruption.ConsolidateAfter = d
		np.Spec.Replicas = replicas
		return np
	}
	last := t0.Add(time.Minute)
	for _, tc := range []struct {
		name string
		np   *karpv1.NodePool
		nc   *karpv1.NodeClaim
		now  time.Time
		ok   bool
		at   time.Time
	}{
		{"not yet", pool(after(5*time.Minute), nil), initialized(t0), last.Add(4 * time.Minute), false, last.Add(5 * time.Minute)},
		{"just passed", pool(after(5*time.Minute), nil), initialized(t0), last.Add(5 * time.Minute), true, last.Add(5 * time.Minute)},
		{"0s: at once", pool(after(0), nil), initialized(t0), last, true, last},
		{"Never", pool(never, nil), initialized(t0), last.Add(time.Hour), false, time.Time{}},
		{"static", pool(after(0), new(int64(2))), initialized(t0), last.Add(time.Hour), false, time.Time{}},
		{"not initialized", pool(after(0), nil), initialized(time.Time{}), last.Add(time.Hour), false, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, at := Consolidatable(tc.np, tc.nc, last, tc.now)
			if ok != tc.ok || !at.Equal(tc.at) {
				t.Errorf("Consolidatable = %v, %v; want %v, %v", ok, at, tc.ok, tc.at)
			}
		})
	}
}

// TestLastPodEvent is the latest of what the state saw, the status kept across restarts, and the
// NodeClaim's initialization.
func TestLastPodEvent(t *testing.T) {
	for _, tc := range []struct {
		name          string
		seen, status  time.Time
		initializedAt time.Time
		want          time.Time
	}{
		{"seen last", t0.Add(3 * time.Minute), t0.Add(2 * time.Minute), t0, t0.Add(3 * time.Minute)},
		{"the status after a restart", time.Time{}, t0.Add(2 * time.Minute), t0, t0.Add(2 * time.Minute)},
		{"no pod yet: initialization", time.Time{}, time.Time{}, t0.Add(time.Minute), t0.Add(time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := initialized(tc.initializedAt)
			nc.Status.LastPodEventTime = metav1.NewTime(tc.status)
			if got := LastPodEvent(&state.Node{NodeClaim: nc, LastPodEvent: tc.seen}); !got.Equal(tc.want) {
				t.Errorf("LastPodEvent = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestExpiredAt: a NodeClaim expires expireAfter after its creation, inclusive; Never and unset
// never expire.
func TestExpiredAt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expire karpv1.NillableDuration
		now    time.Time
		ok     bool
		at     time.Time
	}{
		{"before", after(720 * time.Hour), t0.Add(719 * time.Hour), false, t0.Add(720 * time.Hour)},
		{"at", after(720 * time.Hour), t0.Add(720 * time.Hour), true, t0.Add(720 * time.Hour)},
		{"Never", never, t0.Add(10000 * time.Hour), false, time.Time{}},
		{"unset", karpv1.NillableDuration{}, t0.Add(10000 * time.Hour), false, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := initialized(t0)
			nc.Spec.ExpireAfter = tc.expire
			ok, at := expiredAt(nc, tc.now)
			if ok != tc.ok || !at.Equal(tc.at) {
				t.Errorf("expiredAt = %v, %v; want %v, %v", ok, at, tc.ok, tc.at)
			}
		})
	}
}

// TestRequirementsDrifted: a NodeClaim drifts when its labels break a requirement of its
// NodePool now, or lack a label one requires (Karpenter's areRequirementsDrifted).
func TestRequirementsDrifted(t *testing.T) {
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) karpv1.NodeSelectorRequirementWithMinValues {
		return karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
	}
	labels := map[string]string{karpv1.CapacityTypeLabelKey: "spot", corev1.LabelInstanceTypeStable: "m5.large", "team": "a"}
	for _, tc := range []struct {
		name string
		reqs []karpv1.NodeSelectorRequirementWithMinValues
		want bool
	}{
		{"still allowed", []karpv1.NodeSelectorRequirementWithMinValues{req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot", "on-demand")}, false},
		{"capacity type no longer allowed", []karpv1.NodeSelectorRequirementWithMinValues{req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand")}, true},
		{"instance type excluded", []karpv1.NodeSelectorRequirementWithMinValues{req(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpNotIn, "m5.large")}, true},
		{"no requirements", nil, false},
		{"custom label among the values", []karpv1.NodeSelectorRequirementWithMinValues{req("team", corev1.NodeSelectorOpIn, "a", "b")}, false},
		{"custom label the NodeClaim lacks", []karpv1.NodeSelectorRequirementWithMinValues{req("tier", corev1.NodeSelectorOpExists)}, true},
		{"custom label now excluded", []karpv1.NodeSelectorRequirementWithMinValues{req("team", corev1.NodeSelectorOpNotIn, "a")}, true},
		{"a lacking label asked NotIn", []karpv1.NodeSelectorRequirementWithMinValues{req("tier", corev1.NodeSelectorOpNotIn, "gold")}, false},
		{"a lacking label asked absent", []karpv1.NodeSelectorRequirementWithMinValues{req("tier", corev1.NodeSelectorOpDoesNotExist)}, false},
		{"a well-known label the NodeClaim lacks", []karpv1.NodeSelectorRequirementWithMinValues{req(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "us-east-1a")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &karpv1.NodePool{}
			np.Spec.Template.Spec.Requirements = tc.reqs
			nc := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
			if got := RequirementsDrifted(np, nc); got != tc.want {
				t.Errorf("RequirementsDrifted = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRequirementsDriftedAsKarpenter asks Karpenter's drift check and nodepilot whether NodeClaims
// of 2,000 drawn label sets are drifted from NodePools of drawn requirements: after a hand-over,
// each controller must find drifted exactly the NodeClaims the other would.
func TestRequirementsDriftedAsKarpenter(t *testing.T) {
	cases := upstream.RequirementsCases(2, 2000)
	answers := upstream.Requirements(t, cases)
	seen := map[bool]int{}
	for i, c := range cases {
		np := &karpv1.NodePool{}
		for _, r := range c.B {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		got := RequirementsDrifted(np, &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Labels: c.Labels}})
		seen[got]++
		if want := answers[i].Drifted; got != want {
			t.Errorf("case %d: labels %v against %v: nodepilot drifted %v, Karpenter %v", i, c.Labels, c.B, got, want)
		}
	}
	if seen[true] < 100 || seen[false] < 100 {
		t.Errorf("%d drifted and %d not: too few of one to compare", seen[true], seen[false])
	}
}
