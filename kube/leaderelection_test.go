package kube_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/kube"
)

// elector is one replica running RunWithLeaderElection in a test.
type elector struct {
	identity string
	cancel   context.CancelFunc
	leading  chan struct{} // closed when run starts
	stopped  chan struct{} // closed when run returns
	done     chan error    // RunWithLeaderElection's result
	reads    atomic.Int64  // the Lease reads it observed

	once sync.Once
	err  error
}

// startElector runs RunWithLeaderElection for identity on the Lease namespace/name; the test's
// cleanup stops it.
func startElector(t *testing.T, cfg *rest.Config, namespace, name, identity string) *elector {
	ctx, cancel := context.WithCancel(context.Background())
	el := &elector{identity: identity, cancel: cancel, leading: make(chan struct{}), stopped: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		el.done <- kube.RunWithLeaderElection(ctx, cfg, namespace, name, identity, func(ctx context.Context) {
			close(el.leading)
			<-ctx.Done()
			close(el.stopped)
		}, func(time.Time) { el.reads.Add(1) })
	}()
	t.Cleanup(func() {
		el.cancel()
		el.result(kube.RenewDeadline)
	})
	return el
}

// result waits up to timeout for RunWithLeaderElection to return, and returns its error (the
// same one on every call).
func (el *elector) result(timeout time.Duration) error {
	el.once.Do(func() {
		select {
		case el.err = <-el.done:
		case <-time.After(timeout):
			el.err = fmt.Errorf("still running after %v", timeout)
		}
	})
	return el.err
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
// context ends it stops running and releases the Lease, and the other takes over well before the
// lease duration would have run out. When someone else then takes the Lease, the new leader's run
// is stopped and RunWithLeaderElection reports ErrLeadershipLost.
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
	// The standby reads the Lease every retry period, jittered up to 2.2 times it by client-go:
	// two reads well within the lease duration are what keep it ready (see controller.go).
	before := follower.reads.Load()
	eventually.True(t, kube.LeaseDuration, follower.identity+" reads the Lease twice while standing by", func(context.Context) (bool, string) {
		n := follower.reads.Load() - before
		return n >= 2, fmt.Sprintf("%d reads", n)
	})

	begin := time.Now()
	leader.cancel()
	if err := leader.result(kube.RenewDeadline); err != nil {
		t.Errorf("%s: RunWithLeaderElection = %v after its context ended, want nil", leader.identity, err)
	}
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

	// Another holder takes the Lease: the leader cannot renew, and gives up within RenewDeadline.
	begin = time.Now()
	steal(t, e.client, ns, lease, "intruder")
	err := follower.result(kube.RenewDeadline + kube.LeaseDuration)
	if !errors.Is(err, kube.ErrLeadershipLost) || !isClosed(follower.stopped) {
		t.Fatalf("%s after losing the lease: RunWithLeaderElection = %v, run stopped %v; want ErrLeadershipLost, stopped",
			follower.identity, err, isClosed(follower.stopped))
	}
	t.Logf("%s lost the lease %.1f s after it was taken: %v", follower.identity, time.Since(begin).Seconds(), err)
}

// steal makes identity the holder of the Lease namespace/name, renewed now. The holder renews
// it meanwhile, so a conflict means reading it again.
func steal(t *testing.T, client kubernetes.Interface, namespace, name, identity string) {
	t.Helper()
	leases := client.CoordinationV1().Leases(namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		l, err := leases.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.NewMicroTime(time.Now())
		l.Spec.HolderIdentity, l.Spec.AcquireTime, l.Spec.RenewTime = &identity, &now, &now
		_, err = leases.Update(t.Context(), l, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("steal lease: %v", err)
	}
}

// waitHolder waits until the Lease namespace/name is held by identity.
func waitHolder(t *testing.T, client kubernetes.Interface, namespace, name, identity string) {
	t.Helper()
	eventually.True(t, 5*time.Second, "lease held by "+identity, func(ctx context.Context) (bool, string) {
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
