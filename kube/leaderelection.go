package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// The leader election timings, client-go's and Karpenter's defaults: a leader that stops renewing
// is replaced within LeaseDuration; a leader that cannot renew within RenewDeadline steps down.
const (
	LeaseDuration = 15 * time.Second
	RenewDeadline = 10 * time.Second
	RetryPeriod   = 2 * time.Second
)

// LeaseName names the Lease nodepilot's replicas elect a leader on, in their namespace; the
// chart's Role lets them update that Lease only.
const LeaseName = "nodepilot-leader"

// ErrLeadershipLost is returned by RunWithLeaderElection when the lease could not be renewed
// while ctx was still alive: the process should exit, as Karpenter's does, and be restarted.
var ErrLeadershipLost = errors.New("leadership lost")

// RunWithLeaderElection runs run while this process (identity, unique per replica: the pod name)
// holds the coordination.k8s.io Lease namespace/name, as a headless controller's replicas do.
// It waits to acquire the lease, then calls run with a context that ends when ctx ends or the
// lease is lost, and returns when run has returned. Only then is the lease released (so another
// replica takes over at once, not after LeaseDuration): two replicas never run at the same time
// while the lease is honoured.
//
// read, when not nil, is called each time the Lease is read: a standby replica that cannot
// read it (the API server is out of reach) could not take over, and is not ready.
//
// It returns nil when ctx ended (whether it led or not), ErrLeadershipLost (wrapped) when the
// lease was lost while ctx was alive, and an error when the client cannot be built.
func RunWithLeaderElection(ctx context.Context, cfg *rest.Config, namespace, name, identity string, run func(ctx context.Context), read func(time.Time)) error {
	lease, err := leaseLock(cfg, namespace, name, identity)
	if err != nil {
		return err
	}
	var lock resourcelock.Interface = lease
	if read != nil {
		lock = observedLock{lease, read}
	}
	leading := make(chan context.Context, 1)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   LeaseDuration,
		RenewDeadline:   RenewDeadline,
		RetryPeriod:     RetryPeriod,
		ReleaseOnCancel: true,
		Name:            name,
		Callbacks: leaderelection.LeaderCallbacks{
			// The elector calls this in a goroutine of its own; leaderCtx ends when the lease
			// is lost or the elector stops.
			OnStartedLeading: func(leaderCtx context.Context) { leading <- leaderCtx },
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return fmt.Errorf("lease %s/%s: %w", namespace, name, err)
	}
	// The elector has a context of its own, cancelled only once run has returned, so that it
	// releases the lease after run, never before.
	electorCtx, stopElector := context.WithCancel(context.WithoutCancel(ctx))
	electorDone := make(chan struct{})
	go func() {
		defer close(electorDone)
		elector.Run(electorCtx)
	}()
	defer func() {
		stopElector()
		<-electorDone
	}()

	select {
	case <-ctx.Done():
		return nil
	case leaderCtx := <-leading:
		runCtx, cancel := context.WithCancel(ctx)
		stop := context.AfterFunc(leaderCtx, cancel)
		run(runCtx)
		stop()
		cancel()
		if leaderCtx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("lease %s/%s: %s: %w", namespace, name, identity, ErrLeadershipLost)
		}
		return nil
	}
}

// observedLock calls read after each successful read of the Lease.
type observedLock struct {
	*resourcelock.LeaseLock
	read func(time.Time)
}

// Get implements resourcelock.Interface.
func (l observedLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	record, raw, err := l.LeaseLock.Get(ctx)
	if err == nil {
		l.read(time.Now())
	}
	return record, raw, err
}

// leaseLock returns the lock on the Lease namespace/name for identity, with a client whose
// requests time out well within RenewDeadline, so that one hung request cannot cost the lease.
func leaseLock(cfg *rest.Config, namespace, name, identity string) (*resourcelock.LeaseLock, error) {
	lcfg := rest.CopyConfig(cfg)
	lcfg.Timeout = RenewDeadline / 2
	lcfg.UserAgent = userAgent + "-leader-election"
	client, err := kubernetes.NewForConfig(lcfg)
	if err != nil {
		return nil, fmt.Errorf("leader election client for %s: %w", cfg.Host, err)
	}
	return &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: namespace, Name: name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}, nil
}
