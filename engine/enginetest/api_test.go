package enginetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newTestAPI(t *testing.T) (*clocktesting.FakeClock, *state.Cluster, *API) {
	t.Helper()
	clk := clocktesting.NewFakeClock(testStart)
	cluster := state.NewCluster(clk)
	return clk, cluster, NewAPI(clk, cluster)
}

func testNodeClaim(name string, finalizers ...string) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers, Labels: map[string]string{karpv1.NodePoolLabelKey: "default"}},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large"}}},
			Resources:    karpv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
		},
	}
}

func mustCreateNodeClaim(t *testing.T, a *API, nc *karpv1.NodeClaim) *karpv1.NodeClaim {
	t.Helper()
	out, err := a.CreateNodeClaim(t.Context(), nc)
	if err != nil {
		t.Fatalf("creating nodeclaim: %v", err)
	}
	return out
}

func TestFinalizersHoldDeletedObjects(t *testing.T) {
	for _, tc := range []struct {
		name       string
		finalizers []string
	}{
		{"without finalizers the object goes at once", nil},
		{"a finalizer holds it until removed", []string{karpv1.TerminationFinalizer}},
		{"every finalizer must go", []string{karpv1.TerminationFinalizer, "example.com/other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			clk, cluster, a := newTestAPI(t)
			mustCreateNodeClaim(t, a, testNodeClaim("claim", tc.finalizers...))
			clk.Step(time.Minute)
			if err := a.DeleteNodeClaim(ctx, "claim"); err != nil {
				t.Fatal(err)
			}
			for i := range tc.finalizers {
				got, err := a.NodeClaim("claim")
				if err != nil {
					t.Fatalf("deleted while %d finalizers remain: %v", len(tc.finalizers)-i, err)
				}
				if got.DeletionTimestamp == nil || !got.DeletionTimestamp.Time.Equal(clk.Now()) {
					t.Fatalf("deletion timestamp %v, want %v", got.DeletionTimestamp, clk.Now())
				}
				if n := cluster.Snapshot().NodeByName("claim"); n == nil || !n.MarkedForDeletion {
					t.Fatalf("cluster state does not see the deletion: %+v", n)
				}
				// A second delete changes nothing.
				if err := a.DeleteNodeClaim(ctx, "claim"); err != nil {
					t.Fatal(err)
				}
				// Adding a finalizer to an object being deleted is forbidden.
				_, err = a.UpdateNodeClaim(ctx, "claim", func(nc *karpv1.NodeClaim) error {
					nc.Finalizers = append(nc.Finalizers, "example.com/late")
					return nil
				})
				if !apierrors.IsForbidden(err) {
					t.Fatalf("adding a finalizer while deleting: %v, want Forbidden", err)
				}
				_, err = a.UpdateNodeClaim(ctx, "claim", func(nc *karpv1.NodeClaim) error {
					nc.Finalizers = slices.DeleteFunc(nc.Finalizers, func(f string) bool { return f == tc.finalizers[i] })
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if _, err := a.NodeClaim("claim"); !apierrors.IsNotFound(err) {
				t.Fatalf("after the last finalizer: %v, want NotFound", err)
			}
			if len(cluster.Snapshot().NodeClaims) != 0 {
				t.Fatal("the cluster state still holds the nodeclaim")
			}
			if err := a.DeleteNodeClaim(ctx, "claim"); !apierrors.IsNotFound(err) {
				t.Fatalf("deleting again: %v, want NotFound", err)
			}
		})
	}
}

func TestStatusIsASubresource(t *testing.T) {
	ctx := t.Context()
	_, cluster, a := newTestAPI(t)
	nc := testNodeClaim("claim")
	nc.Status.ProviderID = "aws:///us-east-1a/i-1"
	created := mustCreateNodeClaim(t, a, nc)
	if created.Status.ProviderID != "" {
		t.Errorf("create kept the status: %+v", created.Status)
	}
	if created.Spec.ExpireAfter.String() != "720h0m0s" && created.Spec.ExpireAfter.String() != "720h" {
		t.Errorf("expireAfter not defaulted: %q", created.Spec.ExpireAfter.String())
	}

	for _, tc := range []struct {
		name       string
		status     bool
		mutate     func(*karpv1.NodeClaim)
		wantLabel  string
		wantID     string
		wantErr    func(error) bool
		wantChange bool
	}{
		{name: "status update keeps metadata", status: true,
			mutate:    func(nc *karpv1.NodeClaim) { nc.Labels["x"] = "status"; nc.Status.ProviderID = "aws:///us-east-1a/i-1" },
			wantLabel: "", wantID: "aws:///us-east-1a/i-1", wantChange: true},
		{name: "metadata update keeps status",
			mutate:    func(nc *karpv1.NodeClaim) { nc.Labels["x"] = "meta"; nc.Status.ProviderID = "aws:///us-east-1a/i-2" },
			wantLabel: "meta", wantID: "aws:///us-east-1a/i-1", wantChange: true},
		{name: "spec is immutable",
			mutate: func(nc *karpv1.NodeClaim) {
				nc.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
			},
			wantErr:   apierrors.IsInvalid,
			wantLabel: "meta", wantID: "aws:///us-east-1a/i-1"},
		// As the API server, an update that changes nothing writes nothing: the resource
		// version stays, and no watcher hears of it.
		{name: "metadata update that changes nothing",
			mutate:    func(nc *karpv1.NodeClaim) { nc.Labels["x"] = "meta" },
			wantLabel: "meta", wantID: "aws:///us-east-1a/i-1"},
		{name: "status update that changes nothing", status: true,
			mutate:    func(nc *karpv1.NodeClaim) { nc.Status.ProviderID = "aws:///us-east-1a/i-1" },
			wantLabel: "meta", wantID: "aws:///us-east-1a/i-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := a.NodeClaim("claim")
			heard := cluster.Snapshot().Version
			f := a.UpdateNodeClaim
			if tc.status {
				f = a.UpdateNodeClaimStatus
			}
			_, err := f(ctx, "claim", func(nc *karpv1.NodeClaim) error { tc.mutate(nc); return nil })
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("error %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got, _ := a.NodeClaim("claim")
			if got.Labels["x"] != tc.wantLabel || got.Status.ProviderID != tc.wantID {
				t.Errorf("label %q provider id %q, want %q %q", got.Labels["x"], got.Status.ProviderID, tc.wantLabel, tc.wantID)
			}
			if changed := got.ResourceVersion != before.ResourceVersion; changed != tc.wantChange {
				t.Errorf("resource version %s -> %s, want a change: %v", before.ResourceVersion, got.ResourceVersion, tc.wantChange)
			}
			if told := cluster.Snapshot().Version != heard; told != tc.wantChange {
				t.Errorf("the cluster state heard of the update: %v, want %v", told, tc.wantChange)
			}
			if inCluster := cluster.Snapshot().NodeClaims[0]; inCluster.ResourceVersion != got.ResourceVersion {
				t.Errorf("cluster state at version %s, API at %s", inCluster.ResourceVersion, got.ResourceVersion)
			}
		})
	}
}

func TestGenerateNameIsDeterministic(t *testing.T) {
	names := func() []string {
		_, _, a := newTestAPI(t)
		var out []string
		for range 3 {
			nc := testNodeClaim("")
			nc.GenerateName = "default-"
			out = append(out, mustCreateNodeClaim(t, a, nc).Name)
		}
		return out
	}
	first, second := names(), names()
	if !slices.Equal(first, second) {
		t.Fatalf("names differ between runs: %v and %v", first, second)
	}
	if first[0] == first[1] || first[1] == first[2] {
		t.Fatalf("names repeat: %v", first)
	}
	for _, n := range first {
		if len(n) != len("default-")+5 {
			t.Errorf("name %q: want a five character suffix", n)
		}
	}
	_, _, a := newTestAPI(t)
	if _, err := a.CreateNodeClaim(t.Context(), testNodeClaim("")); !apierrors.IsBadRequest(err) {
		t.Errorf("no name nor generateName: %v", err)
	}
	mustCreateNodeClaim(t, a, testNodeClaim("x"))
	if _, err := a.CreateNodeClaim(t.Context(), testNodeClaim("x")); !apierrors.IsAlreadyExists(err) {
		t.Errorf("duplicate name: %v", err)
	}
	invalid := testNodeClaim("Not_A_Name")
	if _, err := a.CreateNodeClaim(t.Context(), invalid); !apierrors.IsInvalid(err) {
		t.Errorf("invalid name: %v", err)
	}
}

func TestCRDValidation(t *testing.T) {
	ctx := t.Context()
	e := NewEnv(t)
	e.NodePool("default")
	_, err := e.API.UpdateNodePool(ctx, "default", func(np *karpv1.NodePool) error {
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "ten"}}
		return nil
	})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "budgets") {
		t.Errorf("an invalid budget: %v", err)
	}
	np, err := e.API.UpdateNodePool(ctx, "default", func(np *karpv1.NodePool) error {
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "0"}}
		return nil
	})
	if err != nil || np.Generation != 2 {
		t.Errorf("a valid change: generation %d, %v", np.Generation, err)
	}
	nc := testNodeClaim("claim")
	nc.Spec.Requirements = append(nc.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpExists})
	if _, err := e.API.CreateNodeClaim(ctx, nc); !apierrors.IsInvalid(err) {
		t.Errorf("a NodeClaim requiring the hostname: %v", err)
	}
}

func TestUpdatesRetryOnConflict(t *testing.T) {
	for _, tc := range []struct {
		name      string
		setup     func(a *API)
		interfere bool
		wantCalls int
		wantErr   func(error) bool
	}{
		{name: "no conflict", wantCalls: 1},
		{name: "one forced conflict", setup: func(a *API) { a.ForceConflicts(1) }, wantCalls: 2},
		{name: "every update conflicts once", setup: func(a *API) { a.ConflictEveryUpdate(true) }, wantCalls: 2},
		{name: "a concurrent writer", interfere: true, wantCalls: 2},
		{name: "conflicts beyond the retries", setup: func(a *API) { a.ForceConflicts(maxUpdateAttempts) },
			wantCalls: maxUpdateAttempts, wantErr: apierrors.IsConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			_, _, a := newTestAPI(t)
			mustCreateNodeClaim(t, a, testNodeClaim("claim"))
			if tc.setup != nil {
				tc.setup(a)
			}
			calls := 0
			_, err := a.UpdateNodeClaim(ctx, "claim", func(nc *karpv1.NodeClaim) error {
				calls++
				if nc.Labels["seen"] != "" {
					t.Errorf("mutate got a copy changed by an earlier attempt")
				}
				nc.Labels["seen"] = "yes"
				if tc.interfere && calls == 1 {
					if _, err := a.UpdateNodeClaimStatus(ctx, "claim", func(nc *karpv1.NodeClaim) error {
						nc.Status.ImageID = "ami-1"
						return nil
					}); err != nil {
						t.Fatal(err)
					}
				}
				return nil
			})
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("error %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if calls != tc.wantCalls {
				t.Errorf("mutate ran %d times, want %d", calls, tc.wantCalls)
			}
		})
	}
}

func TestFaultInjectionAndHooks(t *testing.T) {
	ctx := t.Context()
	_, _, a := newTestAPI(t)
	var ops []string
	a.OnCall(func(op string) { ops = append(ops, op) })
	boom := errors.New("boom")
	a.FailNext(OpCreateNodeClaim, 2, boom)
	for range 2 {
		if _, err := a.CreateNodeClaim(ctx, testNodeClaim("claim")); !errors.Is(err, boom) {
			t.Fatalf("injected failure: %v", err)
		}
	}
	if len(a.NodeClaims()) != 0 {
		t.Fatal("a failed create stored the nodeclaim")
	}
	mustCreateNodeClaim(t, a, testNodeClaim("claim"))
	a.FailNext(OpDeleteNodeClaim, 1, nil)
	if err := a.DeleteNodeClaim(ctx, "claim"); !errors.Is(err, ErrInjected) {
		t.Fatalf("default injected failure: %v", err)
	}
	a.Event(mustNodeClaim(t, a, "claim"), corev1.EventTypeNormal, "Launched", "launched")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.DeleteNodeClaim(cancelled, "claim"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	want := []string{OpCreateNodeClaim, OpCreateNodeClaim, OpCreateNodeClaim, OpDeleteNodeClaim, OpEvent, OpDeleteNodeClaim}
	if !slices.Equal(ops, want) {
		t.Errorf("hook saw %v, want %v", ops, want)
	}
	events := a.Events()
	if len(events) != 1 || events[0].Kind != "NodeClaim" || events[0].Name != "claim" || events[0].Reason != "Launched" {
		t.Errorf("events %+v", events)
	}
	defer func() {
		if recover() == nil {
			t.Error("FailNext of an unknown operation did not panic")
		}
	}()
	a.FailNext("CreateNodeClaims", 1, nil)
}

func mustNodeClaim(t *testing.T, a *API, name string) *karpv1.NodeClaim {
	t.Helper()
	nc, err := a.NodeClaim(name)
	if err != nil {
		t.Fatal(err)
	}
	return nc
}
