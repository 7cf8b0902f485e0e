package enginetest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// miniAutoscaler is the least autoscaler that drives the world end to end: one NodeClaim for
// all pending pods while none is in flight (its node not registered and Ready yet), launched at once, registered when its node comes,
// and terminated when deleted. It is a test of the harness, not of the engine.
func miniAutoscaler(t *testing.T, e *Env) func(context.Context) {
	return func(ctx context.Context) {
		snap := e.Cluster.Snapshot()
		inFlight := false
		for _, sn := range snap.Nodes {
			if sn.NodeClaim != nil && sn.NodeClaim.DeletionTimestamp == nil && (sn.Node == nil ||
				nodeReadyStatus(sn.Node) != corev1.ConditionTrue || hasTaint(sn.Node.Spec.Taints, karpv1.UnregisteredNoExecuteTaint())) {
				inFlight = true
			}
		}
		if pending := snap.PendingPods(); len(pending) > 0 && !inFlight {
			requests := corev1.ResourceList{}
			for _, p := range pending {
				for name, q := range podRequests(p) {
					sum := requests[name]
					sum.Add(q)
					requests[name] = sum
				}
			}
			nc := &karpv1.NodeClaim{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "default-", Labels: map[string]string{karpv1.NodePoolLabelKey: "default"},
					Finalizers: []string{karpv1.TerminationFinalizer}},
				Spec: karpv1.NodeClaimSpec{
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{in(karpv1.CapacityTypeLabelKey, "on-demand"), in(corev1.LabelArchStable, "amd64")},
					Resources:    karpv1.ResourceRequirements{Requests: requests},
					NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: DefaultNodeClass},
				},
			}
			if _, err := e.API.CreateNodeClaim(ctx, nc); err != nil && ctx.Err() == nil {
				t.Errorf("creating a nodeclaim: %v", err)
			}
		}
		for _, nc := range snap.NodeClaims {
			switch {
			case nc.DeletionTimestamp != nil:
				err := e.Cloud.Delete(ctx, nc)
				if cloudprovider.IsNodeClaimNotFound(err) {
					_, err = e.API.UpdateNodeClaim(ctx, nc.Name, func(nc *karpv1.NodeClaim) error { nc.Finalizers = nil; return nil })
				}
				if err != nil && ctx.Err() == nil {
					t.Errorf("terminating %s: %v", nc.Name, err)
				}
			case nc.Status.ProviderID == "":
				launched, err := e.Cloud.Create(ctx, nc)
				if err == nil {
					_, err = e.API.UpdateNodeClaimStatus(ctx, nc.Name, func(o *karpv1.NodeClaim) error {
						o.Status.ProviderID, o.Status.Capacity = launched.Status.ProviderID, launched.Status.Capacity
						return nil
					})
				}
				if err != nil && ctx.Err() == nil {
					t.Errorf("launching %s: %v", nc.Name, err)
				}
			}
		}
		for _, sn := range snap.Nodes {
			if sn.Node != nil && sn.NodeClaim != nil && hasTaint(sn.Node.Spec.Taints, karpv1.UnregisteredNoExecuteTaint()) {
				register(t, e, sn.Node.Name)
			}
		}
	}
}

func TestEnvRunsTheWholeStory(t *testing.T) {
	e := NewEnv(t)
	e.NodePool("default")
	e.AddReconciler(miniAutoscaler(t, e))
	e.DaemonSet("agent", Resources("100m", "64Mi"))
	e.Deployment("web", 5, Resources("1", "1Gi"))
	e.Step(0)
	if got := len(e.PodsOf("web")); got != 5 {
		t.Fatalf("%d web pods", got)
	}
	for _, p := range e.PodsOf("web") {
		if !pending(p) {
			t.Fatalf("pod %s not marked Unschedulable: %+v", p.Name, p.Status.Conditions)
		}
	}
	if len(e.API.NodeClaims()) != 1 || len(e.Cloud.Instances()) != 1 {
		t.Fatalf("%d nodeclaims, %d instances", len(e.API.NodeClaims()), len(e.Cloud.Instances()))
	}
	if err := e.CheckPodsRunning(); err == nil {
		t.Fatal("pods run before any node joined")
	}

	e.Advance(time.Minute, 5*time.Second)
	if err := e.CheckConverged(); err != nil {
		t.Fatalf("not converged: %v", err)
	}
	nodes := e.API.Nodes()
	if len(nodes) != 1 || len(e.PodsOf("agent")) != 1 || e.PodsOf("agent")[0].Spec.NodeName != nodes[0].Name {
		t.Fatalf("nodes %d, agent pods %v", len(nodes), e.PodsOf("agent"))
	}
	if got, want := e.HourlyCost(), 0.34; got != want {
		t.Errorf("cost %v $/h, want %v (c5.2xlarge on-demand)", got, want)
	}

	// Scaled to zero, the node is deleted by hand here (the engine would consolidate it).
	e.Scale("web", 0)
	e.Step(0)
	if got := len(e.PodsOf("web")); got != 0 {
		t.Fatalf("%d web pods after scaling to zero", got)
	}
	if err := e.API.DeleteNodeClaim(t.Context(), e.API.NodeClaims()[0].Name); err != nil {
		t.Fatal(err)
	}
	e.Step(0)
	if err := e.CheckConverged(); err != nil {
		t.Fatalf("not converged after scale down: %v", err)
	}
	if len(e.API.Nodes()) != 0 || e.HourlyCost() != 0 || len(e.API.Pods()) != 0 {
		t.Fatalf("left: %d nodes, %d pods, %v $/h", len(e.API.Nodes()), len(e.API.Pods()), e.HourlyCost())
	}
}

func pending(p *corev1.Pod) bool {
	c := podScheduled(p)
	return p.Spec.NodeName == "" && c != nil && c.Reason == corev1.PodReasonUnschedulable
}

func TestDeploymentsReplaceEvictedPodsAndScaleBudgets(t *testing.T) {
	ctx := t.Context()
	e := NewEnv(t)
	for _, name := range []string{"a", "b"} {
		if _, err := e.API.CreateNode(ctx, readyNode(name)); err != nil {
			t.Fatal(err)
		}
	}
	e.Deployment("api", 3, Resources("1", ""))
	e.PDB("api", map[string]string{"app": "api"}, "", "1")
	e.Step(0)
	if err := e.CheckPodsRunning(); err != nil {
		t.Fatal(err)
	}
	victims := e.PodsOf("api")
	if err := e.API.Evict(ctx, victims[0]); err != nil {
		t.Fatalf("first eviction: %v", err)
	}
	// The replacement is pending (or starting): the budget counts the scale, 3, and refuses.
	if err := e.API.Evict(ctx, victims[1]); !errors.Is(err, state.ErrEvictionRefused) {
		t.Fatalf("second eviction while one pod is down: %v", err)
	}
	if b, _ := e.API.PDBStatus("default", "api"); b.Expected != 3 || b.Desired != 2 || b.Healthy != 2 {
		t.Errorf("budget %+v", b)
	}
	e.Step(0)
	if got := len(e.PodsOf("api")); got != 3 {
		t.Fatalf("%d active pods after the eviction, want the replacement too", got)
	}
	e.Step(DefaultKubeletOptions().PodTerminationDelay)
	if err := e.API.Evict(ctx, victims[1]); err != nil {
		t.Fatalf("eviction once the replacement runs: %v", err)
	}
	if ev := e.API.Evictions(); len(ev) != 3 || ev[1].Allowed || ev[1].PDB != "api" || !strings.Contains(ev[1].Message, "needs 2 healthy pods") {
		t.Errorf("evictions %+v", ev)
	}
	e.Scale("api", 1)
	e.Step(time.Minute)
	if got := e.PodsOf("api"); len(got) != 1 {
		t.Fatalf("%d pods after scaling to one", len(got))
	}
}

func TestDaemonSetPodsLandOnRegisteredNodesOnly(t *testing.T) {
	ctx := t.Context()
	e := NewEnv(t)
	if _, err := e.API.CreateNode(ctx, readyNode("a", func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{karpv1.UnregisteredNoExecuteTaint()} })); err != nil {
		t.Fatal(err)
	}
	if _, err := e.API.CreateNode(ctx, readyNode("b", func(n *corev1.Node) { n.Spec.Unschedulable = true })); err != nil {
		t.Fatal(err)
	}
	e.DaemonSet("agent", Resources("100m", ""), WithPriorityClass("system-node-critical"))
	e.Step(0)
	got := e.PodsOf("agent")
	if len(got) != 1 || got[0].Spec.NodeName != "b" || got[0].Status.Phase != corev1.PodRunning {
		t.Fatalf("agent pods %v, want one running on b (cordoned is tolerated, unregistered is not)", got)
	}
	register(t, e, "a")
	e.Step(0)
	if got := e.PodsOf("agent"); len(got) != 2 {
		t.Fatalf("%d agent pods after registration", len(got))
	}
}

func TestInvariantChecksReportViolations(t *testing.T) {
	ctx := t.Context()
	e := NewEnv(t, WithKubelet(KubeletOptions{}))
	e.NodePool("default", Limit(corev1.ResourceCPU, "2"))
	nc := claim("twice", "1")
	nc.UID = ""
	stored, err := e.API.CreateNodeClaim(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	launched, err := e.Cloud.Create(ctx, stored)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CheckInvariants(); err != nil {
		t.Fatalf("violations before any: %v", err)
	}
	if _, err := e.API.UpdateNodeClaimStatus(ctx, "twice", func(o *karpv1.NodeClaim) error {
		o.Status.ProviderID, o.Status.Capacity = launched.Status.ProviderID, Resources("4", "")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A NodeClaim recreated under the same name launches a second instance; the first is orphaned.
	if err := e.API.DeleteNodeClaim(ctx, "twice"); err != nil {
		t.Fatal(err)
	}
	again, err := e.API.CreateNodeClaim(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Cloud.Create(ctx, again); err != nil {
		t.Fatal(err)
	}
	e.Step(0)
	node := NodeName(Instance{ID: "i-1", Zone: launched.Labels[corev1.LabelTopologyZone]})
	if _, err := e.API.UpdateNode(ctx, node, func(n *corev1.Node) error {
		n.Spec.Taints = append(n.Spec.Taints, karpv1.DisruptedNoScheduleTaint())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Pod("stuck", Resources("100", ""))
	e.Step(0)
	err = e.CheckConverged()
	for _, want := range []string{
		"nodeclaim twice: 2 instances launched",
		"instance i-1 of nodeclaim twice runs without its nodeclaim",
		"stale karpenter.sh/disrupted taint",
		"pod default/stuck is Pending (not scheduled)",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckConverged() = %v, want it to say %q", err, want)
		}
	}
	// The new NodeClaim claims the old instance and its four CPUs: over the limit of two; and
	// once that instance is gone, a NodeClaim without its instance.
	if _, err := e.API.UpdateNodeClaimStatus(ctx, "twice", func(o *karpv1.NodeClaim) error {
		o.Status.ProviderID, o.Status.Capacity = launched.Status.ProviderID, Resources("4", "")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := e.CheckNodePoolLimits(); err == nil || !strings.Contains(err.Error(), "nodepool default: cpu 4 over its limit 2") {
		t.Errorf("limits: %v", err)
	}
	e.Cloud.Terminate(launched.Status.ProviderID)
	if err := e.CheckNodeClaimsHaveInstances(); err == nil || !strings.Contains(err.Error(), "nodeclaim twice: its instance") {
		t.Errorf("nodeclaims without instances: %v", err)
	}
}

// fatalTB records a fatal failure and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestSettleFailsOnChurn(t *testing.T) {
	tb := &fatalTB{TB: t}
	e := NewEnv(tb)
	e.NodePool("default")
	e.AddReconciler(func(ctx context.Context) {
		_ = e.API.UpdateNodePoolStatus(ctx, "default", func(np *karpv1.NodePool) error {
			np.Status.Nodes = ptr.To(ptr.Deref(np.Status.Nodes, 0) + 1)
			return nil
		})
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Step(time.Second)
	}()
	<-done
	if !strings.Contains(tb.msg, "did not settle") || !strings.Contains(tb.msg, "the reconcilers kept changing") {
		t.Errorf("Settle with a reconciler writing on every pass: %q", tb.msg)
	}
}

func TestCrashRightAfterALaunchLeavesNoDuplicate(t *testing.T) {
	e := NewEnv(t, WithKubelet(KubeletOptions{}))
	e.NodePool("default")
	e.Deployment("web", 2, Resources("1", ""))

	// The first engine crashes right after the cloud launched, before it recorded the launch.
	crashed, crash := context.WithCancel(t.Context())
	e.Cloud.OnCall(func(op string) {
		if op == "Create" {
			crash()
		}
	})
	first := miniAutoscaler(t, e)
	stop := e.AddReconciler(func(context.Context) {
		if crashed.Err() == nil {
			first(crashed)
		}
	})
	e.Step(0)
	stop()
	e.Cloud.OnCall(nil)
	if len(e.Cloud.Instances()) != 1 || e.API.NodeClaims()[0].Status.ProviderID != "" {
		t.Fatalf("the crash should fall between launch and record: %d instances, nodeclaim %+v", len(e.Cloud.Instances()), e.API.NodeClaims()[0].Status)
	}

	// A fresh engine finds the same instance and converges.
	e.AddReconciler(miniAutoscaler(t, e))
	e.Advance(time.Minute, 5*time.Second)
	if err := e.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	if got := e.Cloud.Launches(); len(got) != 1 {
		t.Errorf("launches %v", got)
	}
}

func TestReconcilersRunUntilRemoved(t *testing.T) {
	e := NewEnv(t)
	calls := 0
	remove := e.AddReconciler(func(context.Context) { calls++ })
	e.Step(time.Second)
	if calls != 1 {
		t.Fatalf("%d calls in a quiet step, want 1", calls)
	}
	remove()
	e.Step(time.Second)
	if calls != 1 {
		t.Fatalf("called after removal")
	}
}
