package kube_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/charts"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/kube"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// The identity the chart (charts/nodepilot) creates, installed as release rbacRelease in the
// namespace rbacNamespace: the chart names its ServiceAccount, ClusterRole and Role after the release.
const (
	rbacNamespace      = "nodepilot"
	rbacRelease        = "nodepilot"
	rbacServiceAccount = rbacRelease
)

// testRBAC: with the chart's RBAC applied, the nodepilot ServiceAccount (authenticated with a
// TokenRequest token) can do everything the informers, the Writer and leader election do, and
// no more than that in one sample (secrets); the API server accepts the chart's other objects.
func testRBAC(t *testing.T, e *env) {
	ctx := t.Context()
	objs, err := charts.Render(rbacRelease, rbacNamespace, map[string]any{"settings": map[string]any{"clusterName": "rbac"}})
	if err != nil {
		t.Fatal(err)
	}
	applyRBAC(t, e.client, objs)
	cfg := serviceAccountConfig(t, e)
	sa, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := sa.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("who am I: %v", err)
	}
	if want := "system:serviceaccount:" + rbacNamespace + ":" + rbacServiceAccount; review.Status.UserInfo.Username != want {
		t.Fatalf("acting as %q, want %q", review.Status.UserInfo.Username, want)
	}
	if _, err := sa.CoreV1().Secrets(rbacNamespace).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list secrets as the service account = %v, want Forbidden", err)
	}

	t.Run("ChartAccepted", func(t *testing.T) { chartAccepted(t, e.client, objs) })
	t.Run("Informers", func(t *testing.T) {
		if c := rbacInformers(t, cfg); c.Unwatched(state.KindVolumeAttachment) != "" || c.Unwatched(state.KindPVC) != "" {
			t.Errorf("volumes unwatched with the chart's RBAC: %q %q", c.Unwatched(state.KindVolumeAttachment), c.Unwatched(state.KindPVC))
		}
	})
	t.Run("InformersWithoutVolumes", func(t *testing.T) { rbacWithoutVolumes(t, e, cfg) })
	t.Run("Writer", func(t *testing.T) { rbacWriter(t, e, cfg) })
	t.Run("LeaderElection", func(t *testing.T) {
		ran := false
		err := kube.RunWithLeaderElection(ctx, cfg, rbacNamespace, kube.LeaseName, "rbac-test", func(context.Context) { ran = true }, nil)
		if err != nil || !ran {
			t.Errorf("RunWithLeaderElection = %v, ran %v", err, ran)
		}
	})
}

// applyRBAC creates the namespace rbacNamespace, as `helm install --create-namespace` does, and
// in it the identity and RBAC of the chart's objects (rendered for the release rbacRelease): its
// ServiceAccount, ClusterRole, ClusterRoleBinding, Role and RoleBinding.
func applyRBAC(t *testing.T, client kubernetes.Interface, objs []*unstructured.Unstructured) {
	t.Helper()
	createNamespace(t, client, rbacNamespace)
	created := map[string]int{}
	for _, u := range objs {
		kind := u.GetKind()
		if !slices.Contains(rbacKinds, kind) {
			continue
		}
		if kind == "ServiceAccount" && u.GetName() != rbacServiceAccount {
			t.Fatalf("the chart's ServiceAccount is %q, want %q", u.GetName(), rbacServiceAccount)
		}
		var err error
		ctx, opts := t.Context(), metav1.CreateOptions{}
		switch o := typed(t, u).(type) {
		case *corev1.ServiceAccount:
			_, err = client.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, opts)
		case *rbacv1.ClusterRole:
			_, err = client.RbacV1().ClusterRoles().Create(ctx, o, opts)
		case *rbacv1.ClusterRoleBinding:
			_, err = client.RbacV1().ClusterRoleBindings().Create(ctx, o, opts)
		case *rbacv1.Role:
			_, err = client.RbacV1().Roles(o.Namespace).Create(ctx, o, opts)
		case *rbacv1.RoleBinding:
			_, err = client.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, opts)
		}
		if err != nil {
			t.Fatalf("create the chart's %s %s: %v", kind, u.GetName(), err)
		}
		created[kind]++
	}
	for _, kind := range rbacKinds {
		if created[kind] != 1 {
			t.Fatalf("the chart rendered %d objects of kind %s, want 1", created[kind], kind)
		}
	}
}

// rbacKinds are the kinds of the chart's objects that make nodepilot's identity and its rights.
var rbacKinds = []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}

// typed decodes one of the chart's objects into its client-go type.
func typed(t *testing.T, u *unstructured.Unstructured) runtime.Object {
	t.Helper()
	data, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("the chart's %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return obj
}

// chartAccepted: the API server accepts the chart's other objects (Service, Deployment,
// PodDisruptionBudget) as rendered, unknown fields refused, in a server-side dry run (no kubelet
// here would run the Deployment's pods).
func chartAccepted(t *testing.T, client kubernetes.Interface, objs []*unstructured.Unstructured) {
	ctx, opts := t.Context(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}
	var kinds []string
	for _, u := range objs {
		if u.GetKind() == "CustomResourceDefinition" || slices.Contains(rbacKinds, u.GetKind()) {
			continue
		}
		var err error
		switch o := typed(t, u).(type) {
		case *corev1.Service:
			_, err = client.CoreV1().Services(o.Namespace).Create(ctx, o, opts)
		case *appsv1.Deployment:
			_, err = client.AppsV1().Deployments(o.Namespace).Create(ctx, o, opts)
		case *policyv1.PodDisruptionBudget:
			_, err = client.PolicyV1().PodDisruptionBudgets(o.Namespace).Create(ctx, o, opts)
		default:
			t.Fatalf("the chart renders a %s, which this test does not create", u.GetKind())
		}
		if err != nil {
			t.Errorf("dry-run create of the chart's %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		kinds = append(kinds, u.GetKind())
	}
	slices.Sort(kinds)
	if want := []string{"Deployment", "PodDisruptionBudget", "Service"}; !slices.Equal(kinds, want) {
		t.Errorf("created %v, want %v", kinds, want)
	}
}

// serviceAccountConfig returns a client configuration that authenticates as the nodepilot
// ServiceAccount, with a token from the TokenRequest API.
func serviceAccountConfig(t *testing.T, e *env) *rest.Config {
	t.Helper()
	expiry := int64(3600)
	token, err := e.client.CoreV1().ServiceAccounts(rbacNamespace).CreateToken(t.Context(), rbacServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token request: %v", err)
	}
	cfg := rest.AnonymousClientConfig(e.cfg)
	cfg.BearerToken = token.Status.Token
	return cfg
}

// rbacWithoutVolumes: an identity that may not read VolumeAttachments, PVCs, PVs and storage
// classes (a viewer) still starts the informers; the four kinds are unwatched, with why.
func rbacWithoutVolumes(t *testing.T, e *env, cfg *rest.Config) {
	ctx := t.Context()
	roles := e.client.RbacV1().ClusterRoles()
	role, err := roles.Get(ctx, rbacRelease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full := role.DeepCopy()
	role.Rules = slices.DeleteFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.ContainsFunc(r.Resources, func(res string) bool {
			return slices.Contains([]string{"volumeattachments", "persistentvolumeclaims", "persistentvolumes", "storageclasses"}, res)
		})
	})
	if _, err := roles.Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		current, err := roles.Get(context.Background(), rbacRelease, metav1.GetOptions{})
		if err == nil {
			current.Rules = full.Rules
			_, err = roles.Update(context.Background(), current, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Errorf("restoring the ClusterRole: %v", err)
		}
	}()
	eventually.True(t, 20*time.Second, "the narrower role in force", func(ctx context.Context) (bool, string) {
		sa, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return false, err.Error()
		}
		_, err = sa.StorageV1().VolumeAttachments().List(ctx, metav1.ListOptions{Limit: 1})
		return apierrors.IsForbidden(err), fmt.Sprintf("list volumeattachments: %v", err)
	})
	c := rbacInformers(t, cfg)
	for _, kind := range []string{state.KindVolumeAttachment, state.KindPVC, state.KindPV, state.KindStorageClass} {
		if why := c.Unwatched(kind); !strings.Contains(why, "forbidden") {
			t.Errorf("%s unwatched because %q, want the API server's refusal", kind, why)
		}
	}
}

// rbacInformers: the informers list and watch every kind and sync; it returns the state they fed.
func rbacInformers(t *testing.T, cfg *rest.Config) *state.Cluster {
	cluster := state.NewCluster(clock.RealClock{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- kube.RunInformers(ctx, cfg, cluster) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunInformers: %v", err)
		}
	}()
	eventually.True(t, 20*time.Second, "informers synced as the service account", func(context.Context) (bool, string) {
		select {
		case err := <-done:
			done <- err
			return false, fmt.Sprintf("RunInformers returned %v", err)
		default:
		}
		return cluster.Synced(), "not synced"
	})
	return cluster
}

// rbacWriter: every Writer method succeeds as the service account.
func rbacWriter(t *testing.T, e *env, cfg *rest.Config) {
	const ns = "rbac"
	ctx := t.Context()
	createNamespace(t, e.client, ns)
	w, err := kube.NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	pool, err := e.clients.NodePools.Get(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	nc, err := w.CreateNodeClaim(ctx, testNodeClaim("rbac-", pool))
	check(t, "CreateNodeClaim", err)
	_, err = w.UpdateNodeClaim(ctx, nc.Name, func(nc *karpv1.NodeClaim) error { nc.Labels["rbac"] = "yes"; return nil })
	check(t, "UpdateNodeClaim", err)
	_, err = w.UpdateNodeClaimStatus(ctx, nc.Name, func(nc *karpv1.NodeClaim) error { nc.Status.NodeName = "rbac-node"; return nil })
	check(t, "UpdateNodeClaimStatus", err)
	check(t, "DeleteNodeClaim", w.DeleteNodeClaim(ctx, nc.Name))
	_, err = w.UpdateNodeClaim(ctx, nc.Name, func(nc *karpv1.NodeClaim) error { nc.Finalizers = nil; return nil })
	check(t, "UpdateNodeClaim (finalizer)", err)

	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rbac-node"}}
	if _, err := e.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = w.UpdateNode(ctx, node.Name, func(n *corev1.Node) error { n.Spec.Unschedulable = true; return nil })
	check(t, "UpdateNode", err)
	check(t, "DeleteNode", w.DeleteNode(ctx, node.Name))

	for _, name := range []string{"rbac-evict", "rbac-delete"} {
		if _, err := e.client.CoreV1().Pods(ns).Create(ctx, testPod(ns, name, "1000"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	evict, err := e.client.CoreV1().Pods(ns).Get(ctx, "rbac-evict", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Evict", w.Evict(ctx, evict))
	check(t, "DeletePod", w.DeletePod(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rbac-delete"}}, nil))

	_, err = w.UpdateNodePool(ctx, "default", func(np *karpv1.NodePool) error {
		np.Annotations = map[string]string{karpv1.NodePoolHashVersionAnnotationKey: "rbac"}
		return nil
	})
	check(t, "UpdateNodePool", err)
	check(t, "UpdateNodePoolStatus", w.UpdateNodePoolStatus(ctx, "default", func(np *karpv1.NodePool) error {
		meta.SetStatusCondition(&np.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready", Message: "rbac"})
		return nil
	}))
	check(t, "UpdateNodeClassStatus", w.UpdateNodeClassStatus(ctx, "default", state.AsNodeClass(func(nc *awsv1.EC2NodeClass) error {
		nc.Status.InstanceProfile = "rbac-profile"
		return nil
	})))
	if got, err := e.clients.NodeClasses.Get(ctx, "default"); err != nil || got.Status.InstanceProfile != "rbac-profile" {
		t.Errorf("ec2nodeclass status after UpdateNodeClassStatus: %v, %+v", err, got.Status)
	}
	_, err = w.UpdateNodeClass(ctx, "default", state.AsNodeClass(func(nc *awsv1.EC2NodeClass) error {
		nc.Finalizers = append(nc.Finalizers, "rbac.test/finalizer")
		return nil
	}))
	check(t, "UpdateNodeClass", err)
	_, err = w.UpdateNodeClass(ctx, "default", state.AsNodeClass(func(nc *awsv1.EC2NodeClass) error {
		nc.Finalizers = slices.DeleteFunc(nc.Finalizers, func(f string) bool { return f == "rbac.test/finalizer" })
		return nil
	}))
	check(t, "UpdateNodeClass", err)

	w.Event(evict, corev1.EventTypeNormal, "Evicted", "evicted by the rbac test")
	eventually.True(t, 10*time.Second, "event recorded as the service account", func(ctx context.Context) (bool, string) {
		list, err := e.client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, ev := range list.Items {
			if ev.Reason == "Evicted" && ev.InvolvedObject.Name == evict.Name {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events", len(list.Items))
	})
}

// check fails the test if a Writer operation failed.
func check(t *testing.T, op string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s as the service account: %v", op, err)
	}
}
