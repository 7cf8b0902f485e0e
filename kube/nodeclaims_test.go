package kube_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/internal/eventually"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// testNodeClaimFinalizer: CreateNodeClaim honours generateName, owner references and finalizers;
// UpdateNodeClaim retries a conflicting write with a fresh object; UpdateNodeClaimStatus writes the
// status; a NodeClaim with the termination finalizer outlives DeleteNodeClaim until UpdateNodeClaim
// removes the finalizer.
func testNodeClaimFinalizer(t *testing.T, e *env) {
	ctx := t.Context()
	pool, err := e.clients.NodePools.Get(ctx, "default")
	if err != nil {
		t.Fatalf("seed nodepool: %v", err)
	}
	want := testNodeClaim("default-", pool)
	nc, err := e.writer.CreateNodeClaim(ctx, want)
	if err != nil {
		t.Fatalf("CreateNodeClaim: %v", err)
	}
	if !strings.HasPrefix(nc.Name, "default-") || len(nc.Name) == len("default-") ||
		len(nc.OwnerReferences) != 1 || nc.OwnerReferences[0].UID != pool.UID ||
		!slices.Contains(nc.Finalizers, karpv1.TerminationFinalizer) {
		t.Fatalf("created %s, owners %v, finalizers %v", nc.Name, nc.OwnerReferences, nc.Finalizers)
	}
	if want.Name != "" {
		t.Errorf("CreateNodeClaim changed its argument: name %q", want.Name)
	}

	// A write by someone else between the Writer's read and write: mutate runs again on the
	// fresh object, and both changes survive.
	calls := 0
	updated, err := e.writer.UpdateNodeClaim(ctx, nc.Name, func(nc *karpv1.NodeClaim) error {
		calls++
		if calls == 1 {
			other := []byte(`{"metadata":{"labels":{"other":"writer"}}}`)
			if _, err := e.clients.NodeClaims.Patch(ctx, nc.Name, other, false); err != nil {
				return err
			}
		}
		nc.Labels["mine"] = "yes"
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateNodeClaim: %v", err)
	}
	if calls != 2 || updated.Labels["other"] != "writer" || updated.Labels["mine"] != "yes" {
		t.Errorf("mutate ran %d times, labels %v; want 2 runs and both labels", calls, updated.Labels)
	}

	_, err = e.writer.UpdateNodeClaimStatus(ctx, nc.Name, func(nc *karpv1.NodeClaim) error {
		nc.Status.ProviderID = "aws:///us-east-1a/i-0123456789abcdef0"
		meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{
			Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue, Reason: "Launched", Message: "launched",
		})
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateNodeClaimStatus: %v", err)
	}
	got, err := e.clients.NodeClaims.Get(ctx, nc.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ProviderID == "" || !meta.IsStatusConditionTrue(got.Status.Conditions, karpv1.ConditionTypeLaunched) {
		t.Errorf("status after UpdateNodeClaimStatus: %+v", got.Status)
	}

	if err := e.writer.DeleteNodeClaim(ctx, nc.Name); err != nil {
		t.Fatalf("DeleteNodeClaim: %v", err)
	}
	// The finalizer holds it: it is still there, being deleted, and the state marks it so.
	eventually.True(t, 10*time.Second, "nodeclaim marked for deletion in the state", func(ctx context.Context) (bool, string) {
		got, err := e.clients.NodeClaims.Get(ctx, nc.Name)
		if err != nil {
			return false, err.Error()
		}
		if got.DeletionTimestamp == nil {
			return false, "no deletionTimestamp"
		}
		n := e.state.Snapshot().NodeByName(nc.Name)
		return n != nil && n.MarkedForDeletion, fmt.Sprintf("state node %+v", n)
	})

	_, err = e.writer.UpdateNodeClaim(ctx, nc.Name, func(nc *karpv1.NodeClaim) error {
		nc.Finalizers = slices.DeleteFunc(nc.Finalizers, func(f string) bool { return f == karpv1.TerminationFinalizer })
		return nil
	})
	if err != nil {
		t.Fatalf("remove the finalizer: %v", err)
	}
	eventually.True(t, 10*time.Second, "nodeclaim gone, from the API and the state", func(ctx context.Context) (bool, string) {
		_, err := e.clients.NodeClaims.Get(ctx, nc.Name)
		return apierrors.IsNotFound(err) && e.state.Snapshot().NodeByName(nc.Name) == nil, fmt.Sprintf("get: %v", err)
	})

	for name, err := range map[string]error{
		"DeleteNodeClaim": e.writer.DeleteNodeClaim(ctx, nc.Name),
		"UpdateNodeClaim": func() error {
			_, err := e.writer.UpdateNodeClaim(ctx, nc.Name, func(*karpv1.NodeClaim) error { return nil })
			return err
		}(),
	} {
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s of a gone nodeclaim = %v, want NotFound", name, err)
		}
	}
}
