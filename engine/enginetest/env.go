package enginetest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/state"
)

// DefaultStart is the fake clock's default start: Monday 5 January 2026, 09:00 UTC.
func DefaultStart() time.Time { return time.Date(2026, time.January, 5, 9, 0, 0, 0, time.UTC) }

// maxRounds bounds how many rounds Settle runs at one instant before it calls the world
// unstable: far more than any chain of reactions needs.
const maxRounds = 100

// Env is a whole simulated cluster on a fake clock: the cluster state, the API server that
// feeds it, the cloud, the kubelets, the scheduler, and Deployment and DaemonSet controllers.
// Time moves only when the test calls Step or Advance; each then lets every piece react until
// nothing changes. Use an Env from the test's goroutine; the engine may call the API and the
// Cloud from its own goroutines.
type Env struct {
	T         testing.TB
	Clock     *clocktesting.FakeClock
	Cluster   *state.Cluster
	API       *API
	Cloud     *Cloud
	Kubelet   *Kubelet
	Scheduler *Scheduler

	deployments map[string]*deployment
	reconcilers []*reconciler
}

// Option configures NewEnv.
type Option func(*envConfig)

type envConfig struct {
	start    time.Time
	types    []*cloudprovider.InstanceType
	kubelet  KubeletOptions
	balanced bool
}

// WithStart starts the fake clock at t instead of DefaultStart().
func WithStart(t time.Time) Option { return func(c *envConfig) { c.start = t } }

// WithInstanceTypes gives the cloud these types instead of DefaultInstanceTypes.
func WithInstanceTypes(types []*cloudprovider.InstanceType) Option {
	return func(c *envConfig) { c.types = types }
}

// WithKubelet times the kubelets with opts instead of DefaultKubeletOptions.
func WithKubelet(opts KubeletOptions) Option { return func(c *envConfig) { c.kubelet = opts } }

// WithBalancedAllocation makes the scheduler score nodes as kube-scheduler's default profile
// does on resources: BalancedAllocation beside LeastAllocated (see Scheduler).
func WithBalancedAllocation() Option { return func(c *envConfig) { c.balanced = true } }

// NewEnv builds an empty, synced cluster with no nodes and no NodePools.
func NewEnv(t testing.TB, opts ...Option) *Env {
	cfg := envConfig{start: DefaultStart(), kubelet: DefaultKubeletOptions()}
	for _, o := range opts {
		o(&cfg)
	}
	clk := clocktesting.NewFakeClock(cfg.start)
	cluster := state.NewCluster(clk)
	api := NewAPI(clk, cluster)
	cloud := NewCloud(clk, cfg.types)
	return &Env{
		T:           t,
		Clock:       clk,
		Cluster:     cluster,
		API:         api,
		Cloud:       cloud,
		Kubelet:     NewKubelet(api, cloud, clk, cfg.kubelet),
		Scheduler:   &Scheduler{api: api, clock: clk, balanced: cfg.balanced},
		deployments: map[string]*deployment{},
	}
}

// AddReconciler makes every round of Settle call reconcile after the world's own pieces, so
// that the engine's loops can run synchronously, in step with the world, without goroutines.
// The returned function removes it again, as a crash test stops an engine before starting a
// fresh one.
func (e *Env) AddReconciler(reconcile func(context.Context)) (remove func()) {
	r := &reconciler{run: reconcile}
	e.reconcilers = append(e.reconcilers, r)
	return func() { e.reconcilers = slices.DeleteFunc(e.reconcilers, func(x *reconciler) bool { return x == r }) }
}

// reconciler is one function added with AddReconciler.
type reconciler struct{ run func(context.Context) }

// Step advances the clock by d, then settles the world.
func (e *Env) Step(d time.Duration) {
	e.T.Helper()
	e.Clock.Step(d)
	e.Settle()
}

// Advance steps the clock by tick until total has passed, settling after each tick.
func (e *Env) Advance(total, tick time.Duration) {
	e.T.Helper()
	for elapsed := time.Duration(0); elapsed < total; elapsed += tick {
		e.Step(min(tick, total-elapsed))
	}
}

// Settle runs rounds of the watch (the changes SetWatchLag held that are due), the cloud, the
// kubelets, the controllers, the scheduler and the added reconcilers, without moving the clock,
// until a round changes nothing. A world that never settles (more than 100 rounds at one
// instant) fails the test, naming what kept changing: something writes on every pass.
func (e *Env) Settle() {
	e.T.Helper()
	ctx := e.T.Context()
	var changers []string
	for range maxRounds {
		changers = changers[:0]
		if e.API.deliverDue() {
			changers = append(changers, "the watch")
		}
		for _, step := range []struct {
			name string
			run  func(context.Context) (bool, error)
		}{
			{"the cloud", func(ctx context.Context) (bool, error) { return e.Cloud.Step(ctx), nil }},
			{"the kubelet", e.Kubelet.Step},
			{"the deployment controller", e.stepDeployments},
			{"the daemonset controller", e.stepDaemonSets},
			{"the scheduler", e.Scheduler.Step},
			{"the reconcilers", e.runReconcilers},
		} {
			apiBefore, cloudBefore := e.API.Version(), e.Cloud.changes()
			if _, err := step.run(ctx); err != nil {
				e.T.Fatalf("enginetest: %s: %v", step.name, err)
			}
			if e.API.Version() != apiBefore || e.Cloud.changes() != cloudBefore {
				changers = append(changers, step.name)
			}
		}
		if len(changers) == 0 {
			return
		}
	}
	e.T.Fatalf("enginetest: the world did not settle within %d rounds at %s: %s kept changing the cluster or the cloud",
		maxRounds, e.Clock.Now().Format(time.RFC3339), strings.Join(changers, " and "))
}

// runReconcilers runs the added reconcilers once, in order.
func (e *Env) runReconcilers(ctx context.Context) (bool, error) {
	for _, r := range slices.Clone(e.reconcilers) {
		r.run(ctx)
	}
	return false, nil
}

// Now is the fake clock's time.
func (e *Env) Now() time.Time { return e.Clock.Now() }

// HourlyCost is what the running instances cost, in dollars per hour.
func (e *Env) HourlyCost() float64 {
	total := 0.0
	for _, inst := range e.Cloud.Instances() {
		if inst.Running() {
			total += inst.Price
		}
	}
	return total
}
