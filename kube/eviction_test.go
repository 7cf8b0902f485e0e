package kube_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// oneInstance is an Instances source with one running instance.
type oneInstance struct{ inst localcluster.Instance }

func (o oneInstance) Running(context.Context) ([]localcluster.Instance, error) {
	return []localcluster.Instance{o.inst}, nil
}

// testEvictionBudget: on a kwok node registered for an instance (its unregistered taint removed
// through UpdateNode), a Deployment's Running pods are covered by a PDB whose status the
// controller-manager computes; the Eviction API refuses while the eviction would break the budget
// and evicts once it would not. Evicting a gone pod, or one replaced under its name, is NotFound.
func testEvictionBudget(t *testing.T, e *env) {
	const ns = "eviction"
	ctx := t.Context()
	createNamespace(t, e.client, ns)

	inst := localcluster.Instance{
		ID: "i-0eviction0000000", Zone: "us-east-1a", Region: "us-east-1", InstanceType: "m5.xlarge",
		CapacityType: "on-demand", Arch: "amd64", OS: "linux", LaunchedAt: time.Now(),
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("58")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3920m"), corev1.ResourceMemory: resource.MustParse("14Gi"), corev1.ResourcePods: resource.MustParse("58")},
	}
	node := localcluster.NodeName(inst)
	regCtx, stopRegistering := context.WithCancel(ctx)
	registered := make(chan error, 1)
	go func() { registered <- e.cluster.RegisterNodes(regCtx, oneInstance{inst}, 0) }()
	defer func() {
		stopRegistering()
		if err := <-registered; err != nil {
			t.Errorf("RegisterNodes: %v", err)
		}
	}()
	eventually.True(t, 10*time.Second, "node "+node+" registered", func(ctx context.Context) (bool, string) {
		_, err := e.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
	_, err := e.writer.UpdateNode(ctx, node, func(n *corev1.Node) error {
		var keep []corev1.Taint
		for _, taint := range n.Spec.Taints {
			if taint.Key != localcluster.UnregisteredTaintKey {
				keep = append(keep, taint)
			}
		}
		n.Spec.Taints = keep
		return nil
	})
	if err != nil {
		t.Fatalf("remove the unregistered taint: %v", err)
	}

	labels := map[string]string{"app": "web"}
	replicas := int32(2)
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       testPod(ns, "", "100m").Spec,
			},
		},
	}
	deployment.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	if _, err := e.client.AppsV1().Deployments(ns).Create(ctx, deployment, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	minAvailable := intstr.FromInt32(2)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: labels}},
	}
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pdb: %v", err)
	}
	waitBudget(t, e, ns, 2, 0)

	pods := runningPods(t, e, ns)
	err = e.writer.Evict(ctx, pods[0])
	var refused *state.EvictionRefusedError
	if !errors.Is(err, state.ErrEvictionRefused) || !errors.As(err, &refused) {
		t.Fatalf("Evict with the budget at its minimum = %v, want a refusal", err)
	}
	if !strings.Contains(refused.Message, "disruption budget web needs 2 healthy pods and has 2 currently") ||
		refused.Pod != ns+"/"+pods[0].Name {
		t.Errorf("refusal names pod %q, message %q", refused.Pod, refused.Message)
	}
	t.Logf("refused: %v", err)

	scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
	if _, err := e.client.AppsV1().Deployments(ns).UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("scale to 3: %v", err)
	}
	waitBudget(t, e, ns, 3, 1)
	victim := runningPods(t, e, ns)[0]
	if err := e.writer.Evict(ctx, victim); err != nil {
		t.Fatalf("Evict with one disruption allowed: %v", err)
	}
	eventually.True(t, 20*time.Second, "evicted pod "+victim.Name+" gone", func(ctx context.Context) (bool, string) {
		p, err := e.client.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		return false, fmt.Sprintf("get: %v, deletionTimestamp %v", err, p.DeletionTimestamp)
	})

	if err := e.writer.Evict(ctx, victim); !apierrors.IsNotFound(err) {
		t.Errorf("Evict of a gone pod = %v, want NotFound", err)
	}
	// A pod replaced under the same name: the eviction must not take the new one.
	pending := testPod(ns, "reborn", "1000")
	created, err := e.client.CoreV1().Pods(ns).Create(ctx, pending, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := created.DeepCopy()
	old.UID = "00000000-0000-0000-0000-000000000000"
	if err := e.writer.Evict(ctx, old); !apierrors.IsNotFound(err) {
		t.Errorf("Evict of a replaced pod = %v, want NotFound", err)
	}
	if err := e.writer.DeletePod(ctx, old, nil); !apierrors.IsNotFound(err) {
		t.Errorf("DeletePod of a replaced pod = %v, want NotFound", err)
	}
	zero := int64(0)
	if err := e.writer.DeletePod(ctx, created, &zero); err != nil {
		t.Errorf("DeletePod: %v", err)
	}
	if _, err := e.client.CoreV1().Pods(ns).Get(ctx, created.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("unbound pod after DeletePod with grace 0: get = %v, want NotFound", err)
	}
}

// waitBudget waits until the controller-manager has computed the PDB "web" of ns with
// currentHealthy pods and disruptionsAllowed.
func waitBudget(t *testing.T, e *env, ns string, currentHealthy, disruptionsAllowed int32) {
	t.Helper()
	eventually.True(t, 60*time.Second, fmt.Sprintf("pdb web: %d healthy, %d disruptions allowed", currentHealthy, disruptionsAllowed),
		func(ctx context.Context) (bool, string) {
			pdb, err := e.client.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			s := pdb.Status
			return s.ObservedGeneration == pdb.Generation && s.CurrentHealthy == currentHealthy && s.DisruptionsAllowed == disruptionsAllowed,
				fmt.Sprintf("observed generation %d of %d, healthy %d, allowed %d", s.ObservedGeneration, pdb.Generation, s.CurrentHealthy, s.DisruptionsAllowed)
		})
}

// runningPods returns the Running pods of ns that are not being deleted.
func runningPods(t *testing.T, e *env, ns string) []*corev1.Pod {
	t.Helper()
	list, err := e.client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	var out []*corev1.Pod
	for i := range list.Items {
		if p := &list.Items[i]; p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no running pod in %s", ns)
	}
	return out
}
