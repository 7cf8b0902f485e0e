package autoscaler_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/static"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

func replicas(n int64) enginetest.NodePoolOption {
	return func(np *karpv1.NodePool) { np.Spec.Replicas = ptr.To(n) }
}

// staticClaims returns the static NodePool's NodeClaims that are not being deleted.
func staticClaims(h *harness, pool string) []*karpv1.NodeClaim {
	var out []*karpv1.NodeClaim
	for _, nc := range h.API.NodeClaims() {
		if nc.Labels[karpv1.NodePoolLabelKey] == pool && nc.DeletionTimestamp == nil {
			out = append(out, nc)
		}
	}
	return out
}

func setReplicas(t *testing.T, h *harness, pool string, n int64, opts ...enginetest.NodePoolOption) {
	t.Helper()
	if _, err := h.API.UpdateNodePool(t.Context(), pool, func(np *karpv1.NodePool) error {
		np.Spec.Replicas = ptr.To(n)
		for _, o := range opts {
			o(np)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestStaticNodePool: a static NodePool keeps its replicas as Karpenter's static controllers do:
// NodeClaims from its template alone (no instance types, no requests) launched as the cheapest
// type, never consolidated even when empty, pods scheduled onto them and none launched for
// pods, scale-down deleting empty nodes first, limits.nodes holding the count, and drift
// replacing nodes one for one.
func TestStaticNodePool(t *testing.T) {
	h := newHarness(t)
	h.NodePool("fixed", replicas(3))
	h.Advance(time.Minute, time.Second)

	claims := staticClaims(h, "fixed")
	if len(claims) != 3 {
		t.Fatalf("%d nodeclaims, want the 3 replicas", len(claims))
	}
	for _, nc := range claims {
		for _, r := range nc.Spec.Requirements {
			if r.Key == corev1.LabelInstanceTypeStable {
				t.Errorf("nodeclaim %s names instance types %v; a static NodePool's carries its template alone", nc.Name, r.Values)
			}
		}
		if len(nc.Spec.Resources.Requests) != 0 {
			t.Errorf("nodeclaim %s requests %v, want none", nc.Name, nc.Spec.Resources.Requests)
		}
		if nc.Status.ProviderID == "" {
			t.Errorf("nodeclaim %s did not launch", nc.Name)
		}
	}
	if !h.journaled(journal.KindProvisioning, static.ReasonScaledUp, "had 0 running, wants 3, created 3") {
		t.Error("scale-up not journaled")
	}

	// Empty for half an hour with consolidateAfter 0s: never consolidated, and said why.
	h.Advance(30*time.Minute, 10*time.Second)
	if n := len(staticClaims(h, "fixed")); n != 3 {
		t.Fatalf("%d nodeclaims after 30 empty minutes, want 3: static nodes are not consolidated", n)
	}
	if d := h.decisions(false); len(d) != 0 {
		t.Errorf("disruption decisions on a static NodePool: %+v", d)
	}
	if !h.journaled(journal.KindBlocked, disruption.BlockedStatic, "never consolidated") {
		t.Error("no node says it is not consolidated because its NodePool is static")
	}

	// Pods go to the static nodes; one that fits none stays pending, naming the static NodePool.
	h.Deployment("web", 1, enginetest.Resources("500m", "512Mi"))
	h.Deployment("huge", 1, enginetest.Resources("64", "1Gi"))
	h.Advance(time.Minute, time.Second)
	if n := len(h.API.NodeClaims()); n != 3 {
		t.Fatalf("%d nodeclaims, want 3: nothing is launched for pods from a static NodePool", n)
	}
	if !h.journaled(journal.KindProvisioning, "FailedScheduling", "is static (replicas: 3)") {
		t.Error("the pod that fits nowhere does not name the static NodePool")
	}
	h.Scale("huge", 0)
	busy := ""
	for _, p := range h.API.Pods() {
		if p.Labels["app"] == "web" {
			busy = p.Spec.NodeName
		}
	}
	if busy == "" {
		t.Fatal("the web pod did not schedule onto a static node")
	}

	// Scaling down deletes the empty nodes and keeps the busy one.
	setReplicas(t, h, "fixed", 1)
	h.Advance(2*time.Minute, time.Second)
	claims = staticClaims(h, "fixed")
	if len(claims) != 1 || claims[0].Status.NodeName != busy {
		t.Fatalf("after scaling to 1: %d nodeclaims (first on %v), want the one running web on %s", len(claims), nodeNamesOf(claims), busy)
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}

	// limits.nodes holds the count below replicas, and says so once.
	setReplicas(t, h, "fixed", 4, enginetest.Limit(karpv1.ResourceNodes, "2"))
	h.Advance(2*time.Minute, time.Second)
	if n := len(staticClaims(h, "fixed")); n != 2 {
		t.Fatalf("%d nodeclaims with replicas 4 and limits.nodes 2, want 2", n)
	}
	held := 0
	for _, e := range h.entries(journal.KindProvisioning) {
		if e.Reason == static.ReasonHeld {
			held++
		}
	}
	if held != 1 {
		t.Errorf("the hold was journaled %d times, want once", held)
	}

	// Drift replaces each node with a NodeClaim from the new template, one for one.
	setReplicas(t, h, "fixed", 2, func(np *karpv1.NodePool) {
		np.Spec.Template.Labels = map[string]string{"team": "web"}
		np.Spec.Limits = nil
	})
	h.Advance(10*time.Minute, time.Second)
	claims = staticClaims(h, "fixed")
	if len(claims) != 2 {
		t.Fatalf("%d nodeclaims after drift, want 2", len(claims))
	}
	for _, nc := range claims {
		if nc.Labels["team"] != "web" {
			t.Errorf("nodeclaim %s was not replaced after drift (labels %v)", nc.Name, nc.Labels)
		}
	}
	if d := h.decisions(false); len(d) != 2 || d[0].Method != disruption.MethodDrift || d[0].Decision != "replace" {
		t.Errorf("decisions %+v, want two drift replacements", d)
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
}

func nodeNamesOf(claims []*karpv1.NodeClaim) []string {
	out := make([]string, len(claims))
	for i, nc := range claims {
		out[i] = nc.Status.NodeName
	}
	return out
}
