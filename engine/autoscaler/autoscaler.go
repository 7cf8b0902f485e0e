package autoscaler

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/interruption"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/lifecycle"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/engine/static"
	"github.com/nodepilot/nodepilot/engine/termination"
)

// Options tune every loop.
type Options struct {
	Provisioning provisioning.Options
	Lifecycle    lifecycle.Options
	Disruption   disruption.Options
	// DryRun asks for a dry-run executor: every loop decides, and every write is journaled as
	// "would" and not performed. The executor given to New is what enforces it.
	DryRun bool
	// GCPeriod is how often machines and NodeClaims are reconciled with each other.
	GCPeriod time.Duration
	// LifecyclePeriod is how often NodeClaims and terminations advance without a change.
	LifecyclePeriod time.Duration
}

// DefaultOptions are Karpenter's.
func DefaultOptions() Options {
	return Options{Provisioning: provisioning.DefaultOptions(), Lifecycle: lifecycle.DefaultOptions(),
		Disruption: disruption.DefaultOptions(), GCPeriod: 2 * time.Minute, LifecyclePeriod: time.Second}
}

// Autoscaler runs nodepilot's loops over a cluster and a cloud: provisioning, static NodePools,
// the NodeClaim lifecycle, disruption, termination, interruption and garbage collection.
type Autoscaler struct {
	cluster       *state.Cluster
	exec          *executor.Executor
	journal       *journal.Journal
	clock         clock.WithTicker
	opts          Options
	interruptions cloudprovider.Interruptions

	Provisioner  *provisioning.Provisioner
	Static       *static.Controller
	Lifecycle    *lifecycle.Controller
	Disruption   *disruption.Controller
	Termination  *termination.Controller
	Interruption *interruption.Handler

	paused atomic.Bool
}

// New builds the loops. Every write goes through exec; cloud answers the loops' questions
// (instance types, machines, drift). interruptions may be nil (no interruption queue configured).
func New(cluster *state.Cluster, exec *executor.Executor, cloud cloudprovider.CloudProvider, interruptions cloudprovider.Interruptions,
	j *journal.Journal, c clock.WithTicker, opts Options) *Autoscaler {
	return &Autoscaler{
		cluster: cluster, exec: exec, journal: j, clock: c, opts: opts, interruptions: interruptions,
		Provisioner:  provisioning.New(cluster, exec, cloud, j, c, opts.Provisioning),
		Static:       static.New(cluster, exec, cloud, j, c, opts.Provisioning.WellKnownLabels),
		Lifecycle:    lifecycle.New(cluster, exec, cloud, j, c, opts.Lifecycle),
		Disruption:   disruption.New(cluster, exec, cloud, j, c, opts.Disruption),
		Termination:  termination.New(cluster, exec, j, c),
		Interruption: interruption.New(cluster, exec, j, c),
	}
}

// Pause stops every loop from acting (they keep watching) until Resume.
func (a *Autoscaler) Pause() { a.paused.Store(true) }

// Resume undoes Pause.
func (a *Autoscaler) Resume() { a.paused.Store(false) }

// Paused reports whether the loops are paused.
func (a *Autoscaler) Paused() bool { return a.paused.Load() }

// DryRun reports whether the autoscaler only decides.
func (a *Autoscaler) DryRun() bool { return a.exec.DryRun() }

// Run runs every loop until ctx ends, then waits for them to stop.
func (a *Autoscaler) Run(ctx context.Context) {
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	batcher := provisioning.NewBatcher(a.clock, a.opts.Provisioning.BatchIdle, a.opts.Provisioning.BatchMax)
	run(func() { a.batch(ctx, batcher) })
	run(func() { a.provision(ctx, batcher) })
	always := func() bool { return true }
	run(func() {
		a.loop(ctx, a.opts.LifecyclePeriod, always, journal.KindProvisioning, func() error { return a.Static.Reconcile(ctx) })
	})
	run(func() {
		a.loop(ctx, a.opts.LifecyclePeriod, always, journal.KindLaunch, func() error { a.Lifecycle.Reconcile(ctx); return nil })
	})
	run(func() {
		a.loop(ctx, a.opts.LifecyclePeriod, always, journal.KindTermination, func() error { a.Termination.Reconcile(ctx); return nil })
	})
	run(func() {
		a.loop(ctx, a.opts.Disruption.Period, a.Disruption.Busy, journal.KindDisruption, func() error { return a.Disruption.Reconcile(ctx) })
	})
	run(func() {
		a.loop(ctx, a.opts.GCPeriod, nil, journal.KindGarbageCollection, func() error { return a.Lifecycle.GarbageCollect(ctx) })
	})
	if a.interruptions != nil {
		run(func() { a.interrupt(ctx) })
	}
	wg.Wait()
}

// loop calls reconcile every period, and on a cluster change when wake (nil: never) says so,
// unless paused; an error is journaled as the loop's kind.
func (a *Autoscaler) loop(ctx context.Context, period time.Duration, wake func() bool, kind journal.Kind, reconcile func() error) {
	var changes <-chan struct{}
	if wake != nil {
		changes = a.cluster.Subscribe()
	}
	tick := a.clock.NewTicker(period)
	defer tick.Stop()
	for {
		if !a.Paused() {
			if err := reconcile(); err != nil && ctx.Err() == nil && !executor.NotPerformed(err) {
				a.journal.Record(journal.Entry{Time: a.clock.Now(), Kind: kind, Reason: journal.ReasonError, Message: err.Error()})
			}
		}
		for woken := false; !woken; {
			select {
			case <-ctx.Done():
				return
			case <-changes:
				woken = wake()
			case <-tick.C():
				woken = true
			}
		}
	}
}

// batch opens (or extends) a batch on every change of the cluster that may need capacity.
func (a *Autoscaler) batch(ctx context.Context, batcher *provisioning.Batcher) {
	changes := a.cluster.Subscribe()
	seen := uint64(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
			if v := a.cluster.ProvisioningVersion(); v != seen {
				seen = v
				batcher.Trigger()
			}
		}
	}
}

// provision provisions each time a batch closes.
func (a *Autoscaler) provision(ctx context.Context, batcher *provisioning.Batcher) {
	for batcher.Wait(ctx) {
		if a.Paused() {
			continue
		}
		if _, err := a.Provisioner.Reconcile(ctx); err != nil && ctx.Err() == nil && !executor.NotPerformed(err) {
			a.journal.Record(journal.Entry{Time: a.clock.Now(), Kind: journal.KindProvisioning, Reason: journal.ReasonError, Message: "provisioning: " + err.Error()})
		}
	}
}

// interrupt handles the cloud's interruption events; a paused autoscaler leaves them queued.
func (a *Autoscaler) interrupt(ctx context.Context) {
	err := a.interruptions.Run(ctx, func(ctx context.Context, ev cloudprovider.Interruption) error {
		for a.Paused() {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-a.clock.After(time.Second):
			}
		}
		return a.Interruption.Handle(ctx, ev)
	})
	if err != nil && ctx.Err() == nil {
		a.journal.Record(journal.Entry{Time: a.clock.Now(), Kind: journal.KindInterruption, Reason: journal.ReasonError, Message: "interruption queue: " + err.Error()})
	}
}
