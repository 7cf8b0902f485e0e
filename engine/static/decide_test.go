package static

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

type claim struct {
	name                     string
	unlaunched, marked, gone bool
	pods, daemonPods         int
	doNotDisrupt, otherPool  bool
}

func (c claim) node(now time.Time) *state.Node {
	pool := "fixed"
	if c.otherPool {
		pool = "other"
	}
	nc := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: c.name, Labels: map[string]string{karpv1.NodePoolLabelKey: pool},
		CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))}}
	if !c.unlaunched {
		nc.Status.ProviderID = "aws:///us-east-1a/i-" + c.name
	}
	if c.gone {
		nc.DeletionTimestamp = &metav1.Time{Time: now}
	}
	sn := &state.Node{NodeClaim: nc, MarkedForDeletion: c.marked || c.gone}
	for i := range c.pods + c.daemonPods {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: c.name + "-pod"}}
		if i >= c.pods {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", Controller: ptr.To(true)}}
		} else if c.doNotDisrupt {
			p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
		}
		sn.Pods = append(sn.Pods, p)
	}
	return sn
}

// TestDecide: what a static NodePool needs, as Karpenter's static controllers decide it.
func TestDecide(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		replicas int64
		limit    string // limits.nodes, "" for none
		notReady bool
		claims   []claim
		want     *Decision // nil: no decision
		held     string    // part of Held
	}{
		{name: "at replicas", replicas: 2, claims: []claim{{name: "a"}, {name: "b"}, {name: "x", otherPool: true}}},
		{name: "scale up", replicas: 3, claims: []claim{{name: "a"}}, want: &Decision{Create: 2}},
		{name: "a replaced node counts as present", replicas: 2, claims: []claim{{name: "a"}, {name: "b", marked: true}}},
		{name: "a deleting node does not count", replicas: 2, claims: []claim{{name: "a"}, {name: "b", gone: true}}, want: &Decision{Create: 1}},
		{name: "not Ready", replicas: 2, notReady: true, want: &Decision{}, held: `NodePool "fixed" is not Ready: EC2NodeClass missing`},
		{name: "limits.nodes counts every nodeclaim", replicas: 4, limit: "3", claims: []claim{{name: "a"}, {name: "b", gone: true}},
			want: &Decision{Create: 1}, held: "limits.nodes 3 holds"},
		{name: "at limits.nodes", replicas: 4, limit: "1", claims: []claim{{name: "a"}}, want: &Decision{}, held: "below its 4 replicas"},
		{name: "scale down: unlaunched, then empty, then cheapest, do-not-disrupt last", replicas: 1, claims: []claim{
			{name: "dnd", pods: 1, doNotDisrupt: true}, {name: "busy", pods: 3}, {name: "light", pods: 1}, {name: "daemons", daemonPods: 2},
			{name: "new", unlaunched: true}, {name: "leaving", marked: true}},
			want: &Decision{Delete: []string{"new", "daemons", "light", "busy"}}},
		{name: "scale down never counts on marked nodes", replicas: 1, claims: []claim{{name: "a"}, {name: "b", marked: true}, {name: "c", gone: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "fixed"}}
			np.Spec.Replicas = ptr.To(tc.replicas)
			if tc.limit != "" {
				np.Spec.Limits = karpv1.Limits{karpv1.ResourceNodes: resource.MustParse(tc.limit)}
			}
			ready := metav1.Condition{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue}
			if tc.notReady {
				ready.Status, ready.Message = metav1.ConditionFalse, "EC2NodeClass missing"
			}
			np.Status.Conditions = []metav1.Condition{ready}
			snap := &state.Snapshot{NodePools: []*karpv1.NodePool{np, {ObjectMeta: metav1.ObjectMeta{Name: "dynamic"}}}}
			for _, c := range tc.claims {
				snap.Nodes = append(snap.Nodes, c.node(now))
			}
			got := Decide(snap, now)
			if tc.want == nil {
				if len(got) != 0 {
					t.Fatalf("Decide = %+v, want nothing", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("Decide = %+v, want one decision", got)
			}
			d := got[0]
			if d.Create != tc.want.Create || !slices.Equal(d.Delete, tc.want.Delete) {
				t.Errorf("create %d delete %v, want create %d delete %v", d.Create, d.Delete, tc.want.Create, tc.want.Delete)
			}
			if !strings.Contains(d.Held, tc.held) || (tc.held == "") != (d.Held == "") {
				t.Errorf("held %q, want %q", d.Held, tc.held)
			}
		})
	}
}
