package enginetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/state"
)

// runningPod is a pod of app "web" bound to node-a, Running and Ready.
func runningPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{NodeName: "node-a"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

func webPDB(name string, minAvailable, maxUnavailable string) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	if minAvailable != "" {
		pdb.Spec.MinAvailable = ptr.To(intstr.Parse(minAvailable))
	}
	if maxUnavailable != "" {
		pdb.Spec.MaxUnavailable = ptr.To(intstr.Parse(maxUnavailable))
	}
	return pdb
}

func TestEvictionHonoursBudgets(t *testing.T) {
	for _, tc := range []struct {
		name string
		pods int
		// change adjusts pod i before it is created.
		change func(i int, p *corev1.Pod)
		pdbs   []*policyv1.PodDisruptionBudget
		// want is, for each eviction of pod-0, pod-1, ... in turn, whether it is allowed.
		want []bool
		// wantErr, when set, checks the first eviction's error instead.
		wantErr func(error) bool
	}{
		{name: "no budget", pods: 3, want: []bool{true, true, true}},
		{name: "minAvailable 2 of 3", pods: 3, pdbs: []*policyv1.PodDisruptionBudget{webPDB("web", "2", "")}, want: []bool{true, false, false}},
		{name: "minAvailable 50% of 4", pods: 4, pdbs: []*policyv1.PodDisruptionBudget{webPDB("web", "50%", "")}, want: []bool{true, true, false, false}},
		{name: "minAvailable 51% of 4 rounds up to 3", pods: 4, pdbs: []*policyv1.PodDisruptionBudget{webPDB("web", "51%", "")}, want: []bool{true, false}},
		{name: "maxUnavailable 1 of 3", pods: 3, pdbs: []*policyv1.PodDisruptionBudget{webPDB("web", "", "1")}, want: []bool{true, false, false}},
		{name: "maxUnavailable 34% of 3 rounds up to 2", pods: 3, pdbs: []*policyv1.PodDisruptionBudget{webPDB("web", "", "34%")}, want: []bool{true, true, false}},
		{name: "maxUnavailable 0", pods: 2, pdbs: []*policyv1.PodDisruptionBudget{webPDB("web", "", "0")}, want: []bool{false, false}},
		{name: "pending pods are not protected", pods: 2, pdbs: []*policyv1.PodDisruptionBudget{webPDB("web", "100%", "")},
			change: func(i int, p *corev1.Pod) { p.Spec.NodeName, p.Status = "", corev1.PodStatus{} },
			want:   []bool{true, true}},
		{name: "an unhealthy pod may go while the budget holds", pods: 3, pdbs: []*policyv1.PodDisruptionBudget{webPDB("web", "2", "")},
			change: func(i int, p *corev1.Pod) {
				if i == 0 {
					p.Status.Conditions[0].Status = corev1.ConditionFalse
				}
			},
			want: []bool{true, false}},
		{name: "a budget in another namespace does not apply", pods: 2,
			pdbs: []*policyv1.PodDisruptionBudget{func() *policyv1.PodDisruptionBudget {
				p := webPDB("web", "100%", "")
				p.Namespace = "other"
				return p
			}()},
			want: []bool{true, true}},
		{name: "two budgets are an error", pods: 2, pdbs: []*policyv1.PodDisruptionBudget{webPDB("a", "1", ""), webPDB("b", "1", "")},
			wantErr: apierrors.IsInternalError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			_, _, a := newTestAPI(t)
			for i := range tc.pods {
				p := runningPod(fmt.Sprintf("pod-%d", i))
				if tc.change != nil {
					tc.change(i, p)
				}
				if _, err := a.CreatePod(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			for _, pdb := range tc.pdbs {
				if _, err := a.CreatePDB(ctx, pdb); err != nil {
					t.Fatal(err)
				}
			}
			if tc.wantErr != nil {
				if err := a.Evict(ctx, runningPod("pod-0")); !tc.wantErr(err) {
					t.Fatalf("error %v", err)
				}
				return
			}
			for i, allowed := range tc.want {
				p := runningPod(fmt.Sprintf("pod-%d", i))
				err := a.Evict(ctx, p)
				var refused *state.EvictionRefusedError
				switch {
				case allowed && err != nil:
					t.Fatalf("eviction %d refused: %v", i, err)
				case !allowed && (!errors.Is(err, state.ErrEvictionRefused) || !errors.As(err, &refused)):
					t.Fatalf("eviction %d: %v, want a refusal", i, err)
				}
				got, err := a.Pod("default", p.Name)
				switch {
				case allowed && apierrors.IsNotFound(err):
					// pending pods go at once
				case err != nil:
					t.Fatal(err)
				case allowed != (got.DeletionTimestamp != nil):
					t.Fatalf("eviction %d allowed=%v but deletion timestamp %v", i, allowed, got.DeletionTimestamp)
				}
			}
			if got := len(a.Evictions()); got != len(tc.want) {
				t.Errorf("%d evictions recorded, want %d", got, len(tc.want))
			}
		})
	}
}

func TestPodDeletion(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pod       func() *corev1.Pod
		grace     *int64
		wantGone  bool
		wantGrace time.Duration
	}{
		{name: "a bound pod waits for its kubelet", pod: func() *corev1.Pod { return runningPod("p") }, wantGrace: 30 * time.Second},
		{name: "its own grace period", pod: func() *corev1.Pod {
			p := runningPod("p")
			p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](5)
			return p
		}, wantGrace: 5 * time.Second},
		{name: "an explicit grace period", pod: func() *corev1.Pod { return runningPod("p") }, grace: ptr.To[int64](10), wantGrace: 10 * time.Second},
		{name: "grace 0 removes at once", pod: func() *corev1.Pod { return runningPod("p") }, grace: ptr.To[int64](0), wantGone: true},
		{name: "an unbound pod goes at once", pod: func() *corev1.Pod {
			p := runningPod("p")
			p.Spec.NodeName, p.Status = "", corev1.PodStatus{}
			return p
		}, wantGone: true},
		{name: "a finished pod goes at once", pod: func() *corev1.Pod {
			p := runningPod("p")
			p.Status.Phase = corev1.PodSucceeded
			return p
		}, wantGone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			clk, cluster, a := newTestAPI(t)
			p, err := a.CreatePod(ctx, tc.pod())
			if err != nil {
				t.Fatal(err)
			}
			if err := a.DeletePod(ctx, p, tc.grace); err != nil {
				t.Fatal(err)
			}
			got, err := a.Pod("default", "p")
			if tc.wantGone {
				if !apierrors.IsNotFound(err) || len(cluster.Snapshot().Pods) != 0 {
					t.Fatalf("pod still there: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.DeletionTimestamp == nil || !got.DeletionTimestamp.Time.Equal(clk.Now().Add(tc.wantGrace)) {
				t.Fatalf("deletion timestamp %v, want now+%v", got.DeletionTimestamp, tc.wantGrace)
			}
			if ps := cluster.Snapshot().Pods; len(ps) != 1 || ps[0].DeletionTimestamp == nil {
				t.Error("the cluster state did not see the deletion start")
			}
		})
	}
}
