package autoscaler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/aws/awstest"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// harness runs the real autoscaler loops over an in-memory cluster on a fake clock: each step of
// the clock, provisioning, static NodePools, the lifecycle, termination, disruption, garbage collection and the
// interruption queue each get one pass, in that order, until the world settles.
type harness struct {
	*enginetest.Env
	journal    *journal.Journal
	measured   *enginetest.Measurements
	autoscaler *autoscaler.Autoscaler
	stop       func()
}

type harnessOption func(*autoscaler.Options)

func dryRun(o *autoscaler.Options)     { o.DryRun = true }
func spotToSpot(o *autoscaler.Options) { o.Disruption.SpotToSpot = true }

func newHarness(t *testing.T, opts ...harnessOption) *harness {
	t.Helper()
	return newHarnessWithKubelet(t, enginetest.DefaultKubeletOptions(), opts...)
}

// newHarnessWithFamilies offers the large to 4xlarge sizes of these catalog families instead of
// the harness's default dozen types.
func newHarnessWithFamilies(t *testing.T, families []string, opts ...harnessOption) *harness {
	t.Helper()
	var names []string
	for _, f := range families {
		for _, size := range []string{"large", "xlarge", "2xlarge", "4xlarge"} {
			names = append(names, f+"."+size)
		}
	}
	types, err := awstest.CatalogInstanceTypes(names...)
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessWith(t, []enginetest.Option{enginetest.WithKubelet(enginetest.DefaultKubeletOptions()),
		enginetest.WithInstanceTypes(types)}, opts...)
}

func newHarnessWithKubelet(t *testing.T, k enginetest.KubeletOptions, opts ...harnessOption) *harness {
	t.Helper()
	return newHarnessWith(t, []enginetest.Option{enginetest.WithKubelet(k)}, opts...)
}

func newHarnessWith(t testing.TB, envOpts []enginetest.Option, opts ...harnessOption) *harness {
	t.Helper()
	e := enginetest.NewEnv(t, envOpts...)
	h := &harness{Env: e, measured: &enginetest.Measurements{}}
	// The cluster state hears of each change two rounds late, as informers deliver a write's
	// watch event some time after it: the loops must not count on their own writes being seen.
	e.API.SetWatchLag(2)
	h.journal = journal.New(100000, journal.EventSink{Recorder: e.API}, h.measured)
	h.start(opts...)
	return h
}

// start builds a fresh autoscaler (as after a restart) and lets it run on every step. It
// launches one NodeClaim at a time: the simulated cloud answers at once, and a fixed launch order
// gives every run the same instance ids, node names and so decisions, which the dry-run
// comparisons and the crash replay rely on (TestLaunchesRunConcurrently covers concurrency).
func (h *harness) start(opts ...harnessOption) {
	o := autoscaler.DefaultOptions()
	o.Lifecycle.LaunchConcurrency = 1
	for _, opt := range opts {
		opt(&o)
	}
	h.API.Relist()
	h.autoscaler = autoscaler.New(h.Cluster, h.executor(o.DryRun), h.Cloud, h.Cloud, h.journal, h.Clock, o)
	h.stop = h.AddReconciler(h.pass(h.autoscaler))
}

// executor is the harness's executor over its API and cloud, dry-run or live.
func (h *harness) executor(dryRun bool) *executor.Executor {
	mode := executor.Live
	if dryRun {
		mode = executor.DryRun
	}
	return executor.New(mode, h.API, h.Cloud, h.journal, h.Clock)
}

func (h *harness) pass(a *autoscaler.Autoscaler) func(context.Context) {
	return func(ctx context.Context) {
		if _, err := a.Provisioner.Reconcile(ctx); err != nil && ctx.Err() == nil {
			h.T.Errorf("provisioning: %v", err)
		}
		if err := a.Static.Reconcile(ctx); err != nil && ctx.Err() == nil {
			h.T.Errorf("static nodepools: %v", err)
		}
		a.Lifecycle.Reconcile(ctx)
		a.Termination.Reconcile(ctx)
		if err := a.Disruption.Reconcile(ctx); err != nil && ctx.Err() == nil {
			h.T.Errorf("disruption: %v", err)
		}
		if err := a.Lifecycle.GarbageCollect(ctx); err != nil && ctx.Err() == nil {
			h.T.Errorf("garbage collection: %v", err)
		}
		h.Cloud.Poll(ctx, a.Interruption.Handle)
	}
}

// entries returns the journal entries of a kind (all kinds when kind is empty).
func (h *harness) entries(kind journal.Kind) []journal.Entry {
	var out []journal.Entry
	for _, e := range h.journal.Entries(0) {
		if kind == "" || e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// journaled reports whether some entry of kind has reason and a message containing text.
func (h *harness) journaled(kind journal.Kind, reason journal.Reason, text string) bool {
	for _, e := range h.entries(kind) {
		if (reason == "" || e.Reason == reason) && strings.Contains(e.Message, text) {
			return true
		}
	}
	return false
}

func (h *harness) managedNodes() []*state.Node {
	var out []*state.Node
	for _, n := range h.Cluster.Snapshot().Nodes {
		if n.Managed() {
			out = append(out, n)
		}
	}
	return out
}

// nodeOf is the node the first pod of a Deployment runs on.
func (h *harness) nodeOf(t *testing.T, deployment string) string {
	t.Helper()
	ps := h.PodsOf(deployment)
	if len(ps) == 0 || ps[0].Spec.NodeName == "" {
		t.Fatalf("%s is not running", deployment)
	}
	return ps[0].Spec.NodeName
}

// consolidateAfter sets a NodePool's consolidateAfter.
func consolidateAfter(d time.Duration) enginetest.NodePoolOption {
	return func(np *karpv1.NodePool) { np.Spec.Disruption.ConsolidateAfter = karpv1.NewNillableDuration(d) }
}

// budgets replaces a NodePool's disruption budgets.
func budgets(bs ...karpv1.Budget) enginetest.NodePoolOption {
	return func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = bs }
}

func budget(nodes string) karpv1.Budget { return karpv1.Budget{Nodes: nodes} }

func scheduledBudget(nodes, schedule string, d time.Duration) karpv1.Budget {
	return karpv1.Budget{Nodes: nodes, Schedule: ptr.To(schedule), Duration: &metav1.Duration{Duration: d}}
}

func policy(p karpv1.ConsolidationPolicy) enginetest.NodePoolOption {
	return func(np *karpv1.NodePool) { np.Spec.Disruption.ConsolidationPolicy = p }
}

func expireAfter(d time.Duration) enginetest.NodePoolOption {
	return func(np *karpv1.NodePool) { np.Spec.Template.Spec.ExpireAfter = karpv1.NewNillableDuration(d) }
}

func terminationGracePeriod(d time.Duration) enginetest.NodePoolOption {
	return func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: d}
	}
}

func templateLabels(kv ...string) enginetest.NodePoolOption {
	return func(np *karpv1.NodePool) {
		if np.Spec.Template.Labels == nil {
			np.Spec.Template.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			np.Spec.Template.Labels[kv[i]] = kv[i+1]
		}
	}
}

func taint(key, value string) enginetest.NodePoolOption {
	return func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule})
	}
}

// eventOn reports whether an event of a reason, its message starting with text, was recorded on
// an object of a kind.
func (h *harness) eventOn(kind, reason, text string) bool {
	for _, e := range h.API.Events() {
		if e.Kind == kind && e.Reason == reason && strings.HasPrefix(e.Message, text) {
			return true
		}
	}
	return false
}
