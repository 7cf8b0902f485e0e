package localcluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/kube/apis/crds"
)

// TestCluster starts one real control plane and checks, in order, what the autoscaler and the demo
// rely on; the last subtest stops it.
func TestCluster(t *testing.T) {
	all, err := crds.All()
	if err != nil {
		t.Fatalf("crds.All: %v", err)
	}
	kubeconfigOut := filepath.Join(t.TempDir(), "out", "kubeconfig")
	begin := time.Now()
	c, err := startFromDyingThread(t.Context(), Options{
		Dir:           t.TempDir(),
		CRDs:          all,
		KubeconfigOut: kubeconfigOut,
		Logger:        slog.New(slog.NewTextHandler(t.Output(), nil)),
		MetricsServer: true,
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("start to ready: %.2f s (with %d CRDs)", time.Since(begin).Seconds(), len(all))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.LogTails(30))
		}
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	for _, comp := range c.Components() {
		rss, err := rssMiB(comp.PID)
		if err != nil {
			t.Errorf("%s: %v", comp.Name, err)
			continue
		}
		t.Logf("RSS after start: %-24s %6.1f MiB", comp.Name, rss)
	}
	client, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}

	t.Run("Kubeconfig", func(t *testing.T) { testKubeconfig(t, c, kubeconfigOut) })
	t.Run("CRDs", func(t *testing.T) { testCRDs(t, c, all) })
	t.Run("UnschedulablePod", func(t *testing.T) { testUnschedulablePod(t, client) })
	t.Run("RegisterNodes", func(t *testing.T) { testRegisterNodes(t, c, client) })
	t.Run("PodStreams", func(t *testing.T) { testPodStreams(t, c, client) })
	t.Run("Stop", func(t *testing.T) { testStop(t, c) })
}

// startFromDyingThread calls Start from a goroutine locked to its OS thread that then exits
// without unlocking, so the runtime ends the thread. A child forked from that thread would get its
// parent-death signal right then; the rest of TestCluster proves the children were not.
func startFromDyingThread(ctx context.Context, opts Options) (*Cluster, error) {
	type result struct {
		c   *Cluster
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		c, err := Start(ctx, opts)
		done <- result{c, err}
	}()
	r := <-done
	return r.c, r.err
}

// testKubeconfig: both kubeconfig files reach the cluster as an admin, and the server is the
// version the binaries were built as.
func testKubeconfig(t *testing.T, c *Cluster, out string) {
	for _, path := range []string{c.Kubeconfig, out} {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatalf("%s: clientset: %v", path, err)
		}
		version, err := client.Discovery().ServerVersion()
		if err != nil {
			t.Fatalf("%s: server version: %v", path, err)
		}
		if version.GitVersion != kubernetesVersion {
			t.Errorf("%s: server version %s, want %s", path, version.GitVersion, kubernetesVersion)
		}
		// Deleting a namespace that does not exist needs cluster-admin to get as far as NotFound.
		err = client.CoreV1().Namespaces().Delete(t.Context(), "no-such-namespace", metav1.DeleteOptions{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s: delete a missing namespace = %v, want NotFound (admin rights)", path, err)
		}
	}
}

// testCRDs: every CRD given to Start is Established and its resource can be listed.
func testCRDs(t *testing.T, c *Cluster, want []*apiextensionsv1.CustomResourceDefinition) {
	if len(want) == 0 {
		t.Fatal("crds.All returned no CRD")
	}
	ext, err := apiextensionsclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range want {
		got, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(t.Context(), crd.Name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("crd %s: %v", crd.Name, err)
			continue
		}
		established := false
		for _, cond := range got.Status.Conditions {
			established = established || cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue
		}
		if !established {
			t.Errorf("crd %s not Established when Start returned: %v", crd.Name, got.Status.Conditions)
		}
		for _, v := range crd.Spec.Versions {
			gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
			if _, err := dyn.Resource(gvr).List(t.Context(), metav1.ListOptions{}); err != nil {
				t.Errorf("list %s: %v", gvr, err)
			}
		}
	}
}

// testUnschedulablePod: with no room anywhere, kube-scheduler marks the pod Unschedulable, the
// autoscaler's trigger.
func testUnschedulablePod(t *testing.T, client kubernetes.Interface) {
	pod := testPod("too-big", "1000")
	if _, err := client.CoreV1().Pods("default").Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	eventually.True(t, 30*time.Second, "pod too-big PodScheduled=False/Unschedulable", func(ctx context.Context) (bool, string) {
		got, err := client.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == corev1.PodScheduled {
				return cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable,
					fmt.Sprintf("%s %s: %s", cond.Status, cond.Reason, cond.Message)
			}
		}
		return false, fmt.Sprintf("no PodScheduled condition: %v", got.Status.Conditions)
	})
}

// testPod returns a pod of one container requesting cpu.
func testPod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:      "app",
			Image:     "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
		}}},
	}
}

// testRegisterNodes: an instance becomes a tainted Node; once the taint is gone (as the autoscaler
// removes it) kwok keeps it Ready and runs a pod on it; when the instance stops the Node goes.
func testRegisterNodes(t *testing.T, c *Cluster, client kubernetes.Interface) {
	src := &fakeInstances{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.RegisterNodes(ctx, src, 500*time.Millisecond) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RegisterNodes: %v", err)
		}
	}()

	inst := Instance{
		ID: "i-0123456789abcdef0", Zone: "us-east-1a", Region: "us-east-1", InstanceType: "m5.large",
		CapacityType: "on-demand", Arch: "amd64", OS: "linux",
		Labels: map[string]string{"karpenter.sh/nodepool": "default", "karpenter.k8s.aws/instance-family": "m5"},
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29"),
		},
		Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1930m"), corev1.ResourceMemory: resource.MustParse("7Gi"), corev1.ResourcePods: resource.MustParse("29"),
		},
		LaunchedAt: time.Now(),
	}
	name := NodeName(inst)
	src.set(inst)
	nodes := client.CoreV1().Nodes()

	var node *corev1.Node
	eventually.True(t, 10*time.Second, "node "+name+" registered", func(ctx context.Context) (bool, string) {
		var err error
		node, err = nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	if joined := node.CreationTimestamp.Sub(inst.LaunchedAt.Truncate(time.Second)); joined < 500*time.Millisecond-time.Second {
		t.Errorf("node created %v after launch, before the join delay", joined)
	}
	for key, want := range map[string]string{
		labelInstanceType: "m5.large", labelZone: "us-east-1a", labelCapacityType: "on-demand",
		"karpenter.sh/nodepool": "default", labelHostname: name, KwokNodeLabel: KwokNodeValue,
	} {
		if got := node.Labels[key]; got != want {
			t.Errorf("node label %s = %q, want %q", key, got, want)
		}
	}
	if node.Spec.ProviderID != "aws:///us-east-1a/i-0123456789abcdef0" {
		t.Errorf("providerID = %q", node.Spec.ProviderID)
	}
	if !hasTaint(node, UnregisteredTaintKey) {
		t.Errorf("node registered without the %s taint: %v", UnregisteredTaintKey, node.Spec.Taints)
	}

	// The autoscaler's registration step: remove the unregistered taint.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := nodes.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var keep []corev1.Taint
		for _, taint := range n.Spec.Taints {
			if taint.Key != UnregisteredTaintKey {
				keep = append(keep, taint)
			}
		}
		n.Spec.Taints = keep
		_, err = nodes.Update(t.Context(), n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("remove the unregistered taint: %v", err)
	}

	eventually.True(t, 20*time.Second, "node "+name+" Ready and untainted", func(ctx context.Context) (bool, string) {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		ready := false
		for _, cond := range n.Status.Conditions {
			ready = ready || cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue
		}
		return ready && len(n.Spec.Taints) == 0, fmt.Sprintf("conditions %v, taints %v", n.Status.Conditions, n.Spec.Taints)
	})
	got, err := nodes.Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cpu := got.Status.Allocatable[corev1.ResourceCPU]; cpu.MilliValue() != 1930 {
		t.Errorf("allocatable cpu after kwok = %s, want the instance's 1930m", cpu.String())
	}
	// kwok heartbeats through the node's Lease, as a kubelet does; without it the node-lifecycle
	// controller would mark the node NotReady after the 20 s grace period.
	eventually.True(t, 10*time.Second, "lease of node "+name, func(ctx context.Context) (bool, string) {
		lease, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return lease.Spec.RenewTime != nil && lease.Spec.LeaseDurationSeconds != nil && *lease.Spec.LeaseDurationSeconds == 40,
			fmt.Sprintf("renewTime %v, duration %v", lease.Spec.RenewTime, lease.Spec.LeaseDurationSeconds)
	})

	pod := testPod("on-the-node", "1")
	pod.Spec.NodeSelector = map[string]string{labelHostname: name}
	pod.Annotations = map[string]string{UsageCPUAnnotation: "250m", UsageMemoryAnnotation: "300Mi"}
	if _, err := client.CoreV1().Pods("default").Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	eventually.True(t, 20*time.Second, "pod on-the-node Running on "+name, func(ctx context.Context) (bool, string) {
		p, err := client.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Spec.NodeName == name && p.Status.Phase == corev1.PodRunning, fmt.Sprintf("node %q phase %s", p.Spec.NodeName, p.Status.Phase)
	})

	testMetrics(t, c, name, pod)

	src.set()
	eventually.True(t, 10*time.Second, "node "+name+" deleted", func(ctx context.Context) (bool, string) {
		_, err := nodes.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})
}

// testMetrics: metrics-server, behind the aggregation layer, serves what kwok reports for the
// node and the pod (the pod's annotations): what `kubectl top` reads. Its first figures come after
// two scrapes, 15 s apart.
func testMetrics(t *testing.T, c *Cluster, node string, pod *corev1.Pod) {
	client, err := metricsclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	api := client.MetricsV1beta1()
	eventually.True(t, 90*time.Second, "metrics of pod "+pod.Name, func(ctx context.Context) (bool, string) {
		m, err := api.PodMetricses(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if len(m.Containers) != 1 {
			return false, fmt.Sprintf("%d containers", len(m.Containers))
		}
		cpu, mem := m.Containers[0].Usage[corev1.ResourceCPU], m.Containers[0].Usage[corev1.ResourceMemory]
		// CPU is a rate over the window between two scrapes: a few millicores either way.
		ok := cpu.MilliValue() >= 240 && cpu.MilliValue() <= 260 && mem.Cmp(resource.MustParse("300Mi")) == 0
		return ok, fmt.Sprintf("cpu %s memory %s, want 250m and 300Mi", cpu.String(), mem.String())
	})
	m, err := api.NodeMetricses().Get(t.Context(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("metrics of node %s: %v", node, err)
	}
	if cpu := m.Usage[corev1.ResourceCPU]; cpu.MilliValue() < 240 {
		t.Errorf("node %s uses cpu %s, want at least its pod's 250m", node, cpu.String())
	}
}

// hasTaint reports whether node carries a taint with key.
func hasTaint(node *corev1.Node, key string) bool {
	for _, taint := range node.Spec.Taints {
		if taint.Key == key {
			return true
		}
	}
	return false
}

// testStop: Stop ends every process, deletes etcd's data, keeps the logs, and is idempotent.
func testStop(t *testing.T, c *Cluster) {
	begin := time.Now()
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("stop took %.2f s", time.Since(begin).Seconds())
	for _, comp := range c.Components() {
		if alive(comp.PID) {
			t.Errorf("%s (pid %d) still alive after Stop", comp.Name, comp.PID)
		}
		if info, err := os.Stat(comp.Log); err != nil || info.Size() == 0 {
			t.Errorf("%s: log %s missing or empty after Stop: %v", comp.Name, comp.Log, err)
		}
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "etcd")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("etcd data still there after Stop: %v", err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}
