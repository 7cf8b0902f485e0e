package enginetest

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// launch creates a NodeClaim in the API and its instance in the cloud, as the lifecycle would.
func launch(t *testing.T, e *Env, name string, startupTaints ...corev1.Taint) Instance {
	t.Helper()
	nc := claim(name, "1")
	nc.UID = ""
	nc.Spec.StartupTaints = startupTaints
	stored, err := e.API.CreateNodeClaim(t.Context(), nc)
	if err != nil {
		t.Fatal(err)
	}
	launched, err := e.Cloud.Create(t.Context(), stored)
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := e.Cloud.Instance(launched.Status.ProviderID)
	return inst
}

// tolerateTeam tolerates the taint of the test NodeClaims.
func tolerateTeam() PodOption {
	return WithTolerations(corev1.Toleration{Key: "team", Operator: corev1.TolerationOpExists})
}

// register removes the unregistered taint, as the lifecycle does on registration.
func register(t *testing.T, e *Env, node string) {
	t.Helper()
	if _, err := e.API.UpdateNode(t.Context(), node, func(n *corev1.Node) error {
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == karpv1.UnregisteredTaintKey })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func mustNode(t *testing.T, e *Env, name string) *corev1.Node {
	t.Helper()
	n, err := e.API.Node(name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestKubeletRegistersNodesAfterTheirJoinDelay(t *testing.T) {
	e := NewEnv(t)
	cni := corev1.Taint{Key: "node.cilium.io/agent-not-ready", Effect: corev1.TaintEffectNoExecute}
	inst := launch(t, e, "claim", cni)
	name := NodeName(inst)
	if name != "i-1.ec2.internal" {
		t.Errorf("node name %q", name)
	}
	opts := DefaultKubeletOptions()

	e.Step(opts.JoinDelay - time.Second)
	if len(e.API.Nodes()) != 0 {
		t.Fatal("registered before the join delay")
	}
	e.Step(time.Second)
	n := mustNode(t, e, name)
	if n.Spec.ProviderID != inst.ProviderID || n.Labels[corev1.LabelHostname] != name || n.Labels[corev1.LabelInstanceTypeStable] != inst.InstanceType ||
		n.Labels[karpv1.NodePoolLabelKey] != "default" || n.Status.Allocatable.Cpu().IsZero() {
		t.Errorf("node %+v", n)
	}
	for _, want := range []corev1.Taint{karpv1.UnregisteredNoExecuteTaint(), {Key: "team", Value: "a", Effect: corev1.TaintEffectNoSchedule}, cni} {
		if !hasTaint(n.Spec.Taints, want) {
			t.Errorf("node lacks taint %v: %v", want, n.Spec.Taints)
		}
	}
	if nodeReadyStatus(n) != corev1.ConditionFalse {
		t.Errorf("ready %q at registration", nodeReadyStatus(n))
	}

	e.Step(opts.ReadyDelay - time.Second)
	if nodeReadyStatus(mustNode(t, e, name)) == corev1.ConditionTrue {
		t.Fatal("Ready too early")
	}
	e.Step(time.Second)
	if nodeReadyStatus(mustNode(t, e, name)) != corev1.ConditionTrue {
		t.Fatal("not Ready after the ready delay")
	}
	// Startup taints stay until the node is registered and the delay has passed.
	e.Step(time.Hour)
	if !hasTaint(mustNode(t, e, name).Spec.Taints, cni) {
		t.Fatal("startup taint removed before registration")
	}
	register(t, e, name)
	e.Step(0)
	if n := mustNode(t, e, name); hasTaint(n.Spec.Taints, cni) || !hasTaint(n.Spec.Taints, corev1.Taint{Key: "team", Effect: corev1.TaintEffectNoSchedule}) {
		t.Fatalf("after registration: taints %v", n.Spec.Taints)
	}
}

func TestKubeletRetiresNodesOfTerminatedInstances(t *testing.T) {
	for _, tc := range []struct {
		name       string
		finalizers []string
	}{
		{"the node goes", nil},
		{"a finalizer holds the node", []string{karpv1.TerminationFinalizer}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			e := NewEnv(t, WithKubelet(KubeletOptions{}))
			inst := launch(t, e, "claim")
			e.Step(0)
			name := NodeName(inst)
			register(t, e, name)
			if _, err := e.API.UpdateNode(ctx, name, func(n *corev1.Node) error { n.Finalizers = tc.finalizers; return nil }); err != nil {
				t.Fatal(err)
			}
			e.Pod("web", Resources("100m", ""), tolerateTeam())
			e.Step(0)
			if p, _ := e.API.Pod("default", "web"); p.Spec.NodeName != name || p.Status.Phase != corev1.PodRunning || p.Status.StartTime == nil {
				t.Fatalf("pod %s on %q", p.Status.Phase, p.Spec.NodeName)
			}

			if !e.Cloud.Terminate(inst.ProviderID) {
				t.Fatal("not running")
			}
			e.Step(0)
			if _, err := e.API.Pod("default", "web"); !apierrors.IsNotFound(err) {
				t.Errorf("the pod outlived its instance: %v", err)
			}
			n, err := e.API.Node(name)
			if tc.finalizers == nil {
				if !apierrors.IsNotFound(err) {
					t.Fatalf("node still there: %v", err)
				}
				return
			}
			if err != nil || n.DeletionTimestamp == nil || nodeReadyStatus(n) != corev1.ConditionUnknown {
				t.Fatalf("node %v: %v", n, err)
			}
			if _, err := e.API.UpdateNode(ctx, name, func(n *corev1.Node) error { n.Finalizers = nil; return nil }); err != nil {
				t.Fatal(err)
			}
			if _, err := e.API.Node(name); !apierrors.IsNotFound(err) {
				t.Fatalf("node still there without finalizers: %v", err)
			}
		})
	}
}

func TestKubeletFinishesPodDeletions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace int64
		want  time.Duration
	}{
		{"the termination delay bounds a long grace period", 30, 5 * time.Second},
		{"a short grace period ends first", 2, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			e := NewEnv(t, WithKubelet(KubeletOptions{PodTerminationDelay: 5 * time.Second}))
			name := NodeName(launch(t, e, "claim"))
			e.Step(0)
			register(t, e, name)
			p := e.Pod("web", Resources("100m", ""), WithGracePeriod(tc.grace), tolerateTeam())
			e.Step(0)
			if err := e.API.DeletePod(ctx, p, nil); err != nil {
				t.Fatal(err)
			}
			e.Step(tc.want - time.Second)
			if _, err := e.API.Pod("default", "web"); err != nil {
				t.Fatalf("gone too early: %v", err)
			}
			e.Step(time.Second)
			if _, err := e.API.Pod("default", "web"); !apierrors.IsNotFound(err) {
				t.Fatalf("still there after %s: %v", tc.want, err)
			}
		})
	}
}

func TestPodsOfMissingNodesAreCollected(t *testing.T) {
	e := NewEnv(t)
	p := runningPod("orphan")
	if _, err := e.API.CreatePod(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	e.Step(0)
	if _, err := e.API.Pod("default", "orphan"); !apierrors.IsNotFound(err) {
		t.Fatalf("a pod bound to a missing node survived: %v", err)
	}
	if err := e.API.DeletePod(t.Context(), p, ptr.To[int64](0)); !apierrors.IsNotFound(err) {
		t.Fatalf("deleting it again: %v", err)
	}
}
