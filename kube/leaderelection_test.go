package kube_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/nodepilot/nodepilot/kube"
)

// elector is one replica running RunWithLeaderElection in a test.
type elector struct {
	identity string
	cancel   context.CancelFunc
	leading  chan struct{} // closed when run starts
	stopped  chan struct{} // closed when run returns
	done     chan error    // RunWithLeaderElection's result
	stopOnce sync.Once
}

// startElector runs RunWithLeaderElection for identity on the Lease namespace/name until stopped.
func startElector(t *testing.T, cfg *rest.Config, namespace, name, identity string) *elector {
	ctx, cancel := context.WithCancel(context.Background())
	el := &elector{identity: identity, cancel: cancel, leading: make(chan struct{}), stopped: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		el.done <- kube.RunWithLeaderElection(ctx, cfg, namespace, name, identity, func(ctx context.Context) {
			close(el.leading)
			<-ctx.Done()
			close(el.stopped)
		})
	}()
	t.Cleanup(func() { el.stop(t) })
	return el
}

// stop cancels the elector's context and checks that RunWithLeaderElection returns nil soon.
func (el *elector) stop(t *testing.T) {
	el.stopOnce.Do(func() {
		el.cancel()
		select {
		case err := <-el.done:
			if err != nil {
				t.Errorf("%s: RunWithLeaderElection = %v, want nil after its context ended", el.identity, err)
			}
		case <-time.After(kube.RenewDeadline):
			t.Errorf("%s: RunWithLeaderElection still running %v after its context ended", el.identity, kube.RenewDeadline)
		}
	})
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// testLeaderElection: of two electors on one Lease, one leads and holds the Lease; when its
// context ends it stops running, releases the Lease, and the other takes over well before the
// lease duration would have run out.
func testLeaderElection(t *testing.T, e *env) {
	const ns, lease = "leader-election", "nodepilot-leader"
	createNamespace(t, e.client, ns)
	a := startElector(t, e.cfg, ns, lease, "replica-a")
	b := startElector(t, e.cfg, ns, lease, "replica-b")

	var leader, follower *elector
	select {
	case <-a.leading:
		leader, follower = a, b
	case <-b.leading:
		leader, follower = b, a
	case <-time.After(2 * kube.LeaseDuration):
		t.Fatal("no elector leads")
	}
	waitHolder(t, e.client, ns, lease, leader.identity)
	if isClosed(follower.leading) {
		t.Fatalf("both %s and %s lead", leader.identity, follower.identity)
	}

	begin := time.Now()
	leader.stop(t)
	if !isClosed(leader.stopped) {
		t.Errorf("%s: RunWithLeaderElection returned before run did", leader.identity)
	}
	select {
	case <-follower.leading:
		t.Logf("%s took over %.1f s after %s stopped", follower.identity, time.Since(begin).Seconds(), leader.identity)
	case <-time.After(kube.LeaseDuration):
		t.Fatalf("%s did not take over within the lease duration after %s released", follower.identity, leader.identity)
	}
	waitHolder(t, e.client, ns, lease, follower.identity)
}

// waitHolder waits until the Lease namespace/name is held by identity.
func waitHolder(t *testing.T, client kubernetes.Interface, namespace, name, identity string) {
	t.Helper()
	eventually(t, 5*time.Second, "lease held by "+identity, func(ctx context.Context) (bool, string) {
		lease, err := client.CoordinationV1().Leases(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		holder := ""
		if lease.Spec.HolderIdentity != nil {
			holder = *lease.Spec.HolderIdentity
		}
		return holder == identity, fmt.Sprintf("held by %q", holder)
	})
}
