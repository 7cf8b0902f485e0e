package kube_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/kube"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// The identity deploy/rbac.yaml creates.
const (
	rbacNamespace      = "nodepilot"
	rbacServiceAccount = "nodepilot"
)

// testRBAC: with deploy/rbac.yaml applied, the nodepilot ServiceAccount (authenticated with a
// TokenRequest token) can do everything the informers, the Writer and leader election do, and
// no more than that in one sample (secrets).
func testRBAC(t *testing.T, e *env) {
	ctx := t.Context()
	applyRBAC(t, e.client, "../deploy/rbac.yaml")
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

	t.Run("Informers", func(t *testing.T) {
		if c := rbacInformers(t, cfg); c.Unwatched(state.KindVolumeAttachment) != "" || c.Unwatched(state.KindPVC) != "" {
			t.Errorf("volumes unwatched with deploy/rbac.yaml: %q %q", c.Unwatched(state.KindVolumeAttachment), c.Unwatched(state.KindPVC))
		}
	})
	t.Run("InformersWithoutVolumes", func(t *testing.T) { rbacWithoutVolumes(t, e, cfg) })
	t.Run("Writer", func(t *testing.T) { rbacWriter(t, e, cfg) })
	t.Run("LeaderElection", func(t *testing.T) {
		ran := false
		err := kube.RunWithLeaderElection(ctx, cfg, rbacNamespace, "nodepilot-leader", "rbac-test", func(context.Context) { ran = true }, nil)
		if err != nil || !ran {
			t.Errorf("RunWithLeaderElection = %v, ran %v", err, ran)
		}
	})
}

// applyRBAC creates every object of the manifest at path.
func applyRBAC(t *testing.T, client kubernetes.Interface, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ctx, opts := t.Context(), metav1.CreateOptions{}
		switch o := obj.(type) {
		case *corev1.Namespace:
			_, err = client.CoreV1().Namespaces().Create(ctx, o, opts)
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
		default:
			t.Fatalf("%s: unexpected %s", path, gvk)
		}
		if err != nil {
			t.Fatalf("%s: create %s: %v", path, gvk.Kind, err)
		}
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

// rbacWithoutVolumes: an identity that may not read VolumeAttachments and PVCs (a viewer) still
// starts the informers; the two kinds are unwatched, with why.
func rbacWithoutVolumes(t *testing.T, e *env, cfg *rest.Config) {
	ctx := t.Context()
	roles := e.client.RbacV1().ClusterRoles()
	role, err := roles.Get(ctx, rbacServiceAccount, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full := role.DeepCopy()
	role.Rules = slices.DeleteFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.Resources, "volumeattachments") || slices.Contains(r.Resources, "persistentvolumeclaims")
	})
	if _, err := roles.Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		current, err := roles.Get(context.Background(), rbacServiceAccount, metav1.GetOptions{})
		if err == nil {
			current.Rules = full.Rules
			_, err = roles.Update(context.Background(), current, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Errorf("restoring the ClusterRole: %v", err)
		}
	}()
	eventually(t, 20*time.Second, "the narrower role in force", func(ctx context.Context) (bool, string) {
		sa, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return false, err.Error()
		}
		_, err = sa.StorageV1().VolumeAttachments().List(ctx, metav1.ListOptions{Limit: 1})
		return apierrors.IsForbidden(err), fmt.Sprintf("list volumeattachments: %v", err)
	})
	c := rbacInformers(t, cfg)
	for _, kind := range []string{state.KindVolumeAttachment, state.KindPVC} {
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
	eventually(t, 20*time.Second, "informers synced as the service account", func(context.Context) (bool, string) {
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
	check(t, "UpdateNodeClassStatus", w.UpdateNodeClassStatus(ctx, "default", func(nc *awsv1.EC2NodeClass) error {
		nc.Status.InstanceProfile = "rbac-profile"
		return nil
	}))
	if got, err := e.clients.NodeClasses.Get(ctx, "default"); err != nil || got.Status.InstanceProfile != "rbac-profile" {
		t.Errorf("ec2nodeclass status after UpdateNodeClassStatus: %v, %+v", err, got.Status)
	}
	_, err = w.UpdateNodeClass(ctx, "default", func(nc *awsv1.EC2NodeClass) error {
		nc.Finalizers = append(nc.Finalizers, "rbac.test/finalizer")
		return nil
	})
	check(t, "UpdateNodeClass", err)
	_, err = w.UpdateNodeClass(ctx, "default", func(nc *awsv1.EC2NodeClass) error {
		nc.Finalizers = slices.DeleteFunc(nc.Finalizers, func(f string) bool { return f == "rbac.test/finalizer" })
		return nil
	})
	check(t, "UpdateNodeClass", err)

	w.Event(evict, corev1.EventTypeNormal, "Evicted", "evicted by the rbac test")
	eventually(t, 10*time.Second, "event recorded as the service account", func(ctx context.Context) (bool, string) {
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
