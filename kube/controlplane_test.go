package kube_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// env is what the subtests of TestControlPlane share: one real control plane, its admin clients,
// a Writer, and a state.Cluster kept up to date by RunInformers.
type env struct {
	cluster *localcluster.Cluster
	cfg     *rest.Config
	client  kubernetes.Interface
	clients *kube.Clients
	writer  *kube.Writer
	state   *state.Cluster
}

// TestControlPlane starts one real control plane (etcd, kube-apiserver, kube-scheduler,
// kube-controller-manager, kwok) without CRDs, installs them with InstallCRDs, applies the seed
// manifests, starts the informers, and then runs the rest of the subtests side by side. It fails,
// never skips, when the binaries are missing: localcluster's error says to run `make k8s-bins`.
func TestControlPlane(t *testing.T) {
	begin := time.Now()
	c, err := localcluster.Start(t.Context(), localcluster.Options{
		Dir:    t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatalf("start the local control plane: %v", err)
	}
	t.Logf("control plane ready in %.1f s", time.Since(begin).Seconds())
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.LogTails(20))
		}
		if err := c.Stop(); err != nil {
			t.Errorf("stop the control plane: %v", err)
		}
	})
	e := &env{cluster: c, cfg: c.RESTConfig()}
	if e.client, err = kubernetes.NewForConfig(e.cfg); err != nil {
		t.Fatal(err)
	}
	if e.clients, err = kube.NewClients(e.cfg); err != nil {
		t.Fatal(err)
	}
	if e.writer, err = kube.NewWriter(e.cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.writer.Close)

	if !t.Run("InstallCRDs", func(t *testing.T) { testInstallCRDs(t, e) }) {
		t.FailNow()
	}
	t.Run("NewerCRDKept", func(t *testing.T) { testNewerCRDKept(t, e) })
	t.Run("SeedsAccepted", func(t *testing.T) { testSeedsAccepted(t, e) })
	startInformers(t, e)
	t.Run("Parallel", func(t *testing.T) {
		t.Run("InvalidRejected", func(t *testing.T) { t.Parallel(); testInvalidRejected(t, e) })
		t.Run("KubernetesDomainsAccepted", func(t *testing.T) { t.Parallel(); testKubernetesDomainsAccepted(t, e) })
		t.Run("UnschedulablePending", func(t *testing.T) { t.Parallel(); testUnschedulablePending(t, e) })
		t.Run("NodeClaimFinalizer", func(t *testing.T) { t.Parallel(); testNodeClaimFinalizer(t, e) })
		t.Run("EvictionBudget", func(t *testing.T) { t.Parallel(); testEvictionBudget(t, e) })
		t.Run("Events", func(t *testing.T) { t.Parallel(); testEvents(t, e) })
		t.Run("LeaderElection", func(t *testing.T) { t.Parallel(); testLeaderElection(t, e) })
		t.Run("RBAC", func(t *testing.T) { t.Parallel(); testRBAC(t, e) })
		t.Run("HPARefusals", func(t *testing.T) { t.Parallel(); testHPARefusals(t, e) })
	})
	t.Logf("TestControlPlane took %.1f s", time.Since(begin).Seconds())
}

// startInformers runs RunInformers into e.state until the test ends, and waits until every kind
// has synced.
func startInformers(t *testing.T, e *env) {
	e.state = state.NewCluster(clock.RealClock{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kube.RunInformers(ctx, e.cfg, e.state) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunInformers: %v", err)
		}
	})
	begin := time.Now()
	eventually.True(t, 20*time.Second, "informers synced", func(context.Context) (bool, string) {
		select {
		case err := <-done:
			done <- err
			return false, fmt.Sprintf("RunInformers returned %v", err)
		default:
		}
		return e.state.Synced(), "not synced"
	})
	t.Logf("informers synced in %.2f s", time.Since(begin).Seconds())
	s := e.state.Snapshot()
	if len(s.NodePools) == 0 || len(s.NodeClasses) == 0 {
		t.Errorf("synced state has %d NodePools and %d EC2NodeClasses, want the seeds'", len(s.NodePools), len(s.NodeClasses))
	}
}
