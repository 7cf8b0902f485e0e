package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/rightsizing"
	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/usage"
)

// Console is the console's Backend over a running App: it reads the App's state and journal,
// explains with the engine's simulations, and acts through the App's writer and autoscaler.
type Console struct {
	app     *App
	context string
}

var _ ui.Backend = (*Console)(nil)

// Console returns the console's Backend; context names the kubeconfig context for the header.
func (a *App) Console(context string) *Console { return &Console{app: a, context: context} }

// Snapshot implements ui.Backend.
func (c *Console) Snapshot() *state.Snapshot { return c.app.Cluster.Snapshot() }

// Changes implements ui.Backend.
func (c *Console) Changes() <-chan struct{} { return c.app.Cluster.Subscribe() }

// Journal implements ui.Backend.
func (c *Console) Journal() journal.Snapshot { return c.app.Journal.Snapshot() }

// JournalChanges implements ui.Backend.
func (c *Console) JournalChanges() <-chan struct{} { return c.app.Journal.Subscribe() }

// Budgets implements ui.Backend: none for a NodePool the cluster does not have.
func (c *Console) Budgets(nodePool string) []disruption.Allowance {
	return disruption.Budgets(c.app.Cluster.Snapshot(), nodePool, c.app.opts.Clock.Now())
}

// Provisioning implements ui.Backend: nil when read-only (nothing provisions).
func (c *Console) Provisioning() *provisioning.Outcome {
	if c.app.Autoscaler == nil {
		return nil
	}
	return c.app.Autoscaler.Provisioner.Last()
}

// Price implements ui.Backend.
func (c *Console) Price(sn *state.Node) (cost.Price, bool) { return cost.Node(sn, c.app.InstanceType) }

// ExplainPod implements ui.Backend: the provisioner's placement of the pod on the state now.
func (c *Console) ExplainPod(ctx context.Context, pod *corev1.Pod) (*scheduling.PodError, error) {
	if c.app.Provider == nil {
		return nil, c.app.noCloud()
	}
	return provisioning.ExplainPod(ctx, c.app.Provider, c.app.Cluster.Snapshot(), pod, c.app.opts.Autoscaler.Provisioning), nil
}

// ExplainNode implements ui.Backend: the journal's blocker, and what consolidating the node
// alone would do.
func (c *Console) ExplainNode(ctx context.Context, node string) (ui.NodeExplanation, error) {
	var x ui.NodeExplanation
	if e, ok := c.app.Journal.WhyNot(node); ok {
		x.Blocked = &e
	}
	if c.app.Provider == nil {
		return x, c.app.noCloud()
	}
	var stuck map[string]time.Time
	if c.app.Autoscaler != nil {
		stuck = c.app.Autoscaler.Disruption.Stuck()
	}
	sim, err := disruption.Simulate(ctx, c.app.Provider, c.app.Cluster.Snapshot(), node, c.app.opts.Autoscaler.Disruption, c.app.opts.Clock.Now(), stuck)
	if err != nil {
		return x, err
	}
	x.Consolidation = consolidation(sim)
	return x, nil
}

// noCloud is why a simulation cannot run: it needs instance types and prices from AWS.
func (a *App) noCloud() error {
	return fmt.Errorf("explain needs AWS for instance types and prices, and there is %s: set --cluster-name, --region and AWS credentials (see the log)", a.NoProvider)
}

// consolidation turns a simulation into what the console shows.
func consolidation(sim disruption.Simulation) *ui.Consolidation {
	cmd := sim.Command
	if cmd == nil {
		return &ui.Consolidation{Reason: string(sim.Reason) + ": " + sim.Message, Order: sim.Order}
	}
	return &ui.Consolidation{Decision: cmd.Decision(), Replacements: cmd.ReplacementTypes(), PriceBefore: cmd.PriceBefore, PriceAfter: cmd.PriceAfter, Order: sim.Order}
}

// Usage implements ui.Backend: nil when the App does not read metrics.k8s.io.
func (c *Console) Usage() *usage.Snapshot {
	if c.app.Usage == nil {
		return nil
	}
	return c.app.Usage.Snapshot()
}

// rightSizingBudget bounds the per-workload simulations of one right-sizing: the fleet-wide
// plans always run, then workloads alone, most excess first, while time remains.
const rightSizingBudget = 10 * time.Second

// RightSizing implements ui.Backend: every workload's pods against their use over the poller's
// window, priced by planning the fleet from nothing (provisioning.Replan) as requested and
// right-sized.
func (c *Console) RightSizing(ctx context.Context) (*rightsizing.Report, error) {
	switch {
	case c.app.Usage == nil:
		return nil, errors.New("usage is not read here")
	case c.app.Provider == nil:
		return nil, c.app.noCloud()
	}
	if s := c.app.Usage.Snapshot(); !s.Has() {
		return nil, errors.New(s.Status)
	}
	snap := c.app.Cluster.Snapshot()
	policy := rightsizing.DefaultPolicy()
	ws := rightsizing.Suggest(snap.Pods, func(_ rightsizing.Key, ps []*corev1.Pod, container string) usage.Stats {
		keys := make([]string, len(ps))
		for i, p := range ps {
			keys[i] = p.Namespace + "/" + p.Name
		}
		return c.app.Usage.Stats(keys, container, policy.Percentile)
	}, policy)
	prov := c.app.opts.Autoscaler.Provisioning
	in := provisioning.Replan(snap, provisioning.LoadCatalog(ctx, c.app.Provider, snap), prov.Scheduling, prov.WellKnownLabels)
	ctx, cancel := context.WithTimeout(ctx, rightSizingBudget)
	defer cancel()
	r := rightsizing.Simulate(ctx, in, ws)
	return &r, nil
}

// Info implements ui.Backend.
func (c *Console) Info() ui.Info {
	i := ui.Info{Context: c.context, Cluster: c.app.opts.ClusterName, KubernetesVersion: "v" + c.app.KubernetesVersion,
		ReadOnly: c.app.opts.ReadOnly, DryRun: c.app.opts.Autoscaler.DryRun, NoCloud: c.app.NoProvider}
	if c.app.Autoscaler != nil {
		i.Paused = c.app.Autoscaler.Paused()
	}
	return i
}

// Cordon implements ui.Backend.
func (c *Console) Cordon(ctx context.Context, node string, on bool) error {
	what := "uncordon (console)"
	if on {
		what = "cordon (console)"
	}
	_, err := c.app.Executor.UpdateNode(ctx, node, what, func(n *corev1.Node) error {
		n.Spec.Unschedulable = on
		return nil
	})
	return err
}

// Drain implements ui.Backend: it cordons the node and asks the Eviction API to evict each pod
// that a drain moves (not DaemonSet or mirror pods), as kubectl drain does. A PodDisruptionBudget
// that refuses an eviction is reported; the pods it protects stay.
func (c *Console) Drain(ctx context.Context, node string) error {
	if err := c.Cordon(ctx, node, true); err != nil {
		return err
	}
	sn := c.app.Cluster.Snapshot().NodeByName(node)
	if sn == nil {
		return fmt.Errorf("node %q not found", node)
	}
	var errs []error
	for _, p := range sn.Pods {
		if !pods.IsRescheduled(p) {
			continue
		}
		if err := c.app.Executor.Evict(ctx, p); err != nil {
			errs = append(errs, err) // it names the pod
		}
	}
	return errors.Join(errs...)
}

// DeleteNodeClaim implements ui.Backend: termination drains the node and terminates the instance.
func (c *Console) DeleteNodeClaim(ctx context.Context, name string) error {
	return c.app.Executor.DeleteNodeClaim(ctx, name, "(console)")
}

// Contexts implements ui.Backend: the contexts of the App's kubeconfig, and the one it runs on.
func (c *Console) Contexts() ([]string, string, error) {
	names, _, err := kube.Contexts(c.app.opts.Kubeconfig)
	return names, c.context, err
}

// checkContextTimeout bounds CheckContext: a dead API server is refused in seconds, not after
// client-go's default of half a minute, while the operator waits on the console.
const checkContextTimeout = 5 * time.Second

// CheckContext implements ui.Backend: it builds the context's client configuration from the App's
// kubeconfig and asks the API server for /version, so that a context that does not exist or does
// not answer is refused while this App still runs. Unless read-only, the context must also name
// an EKS cluster (kube.EKSCluster): the App for it would refuse to start without the cluster's
// name, which tags instances.
func (c *Console) CheckContext(ctx context.Context, name string) error {
	return c.checkContext(ctx, name, checkContextTimeout)
}

// checkContext is CheckContext, the API server given timeout to answer; the error names the
// context.
func (c *Console) checkContext(ctx context.Context, name string, timeout time.Duration) error {
	if cluster, _ := kube.EKSCluster(c.app.opts.Kubeconfig, name); cluster == "" && !c.app.opts.ReadOnly {
		return fmt.Errorf("context %s names no EKS cluster, and the autoscaler needs the cluster's name to tag instances: quit and run nodepilot --context %s --cluster-name NAME", name, name)
	}
	cfg, err := kube.RESTConfig(c.app.opts.Kubeconfig, name)
	if err != nil {
		return fmt.Errorf("context %s: %w", name, err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = timeout
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("context %s: %w", name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := dc.RESTClient().Get().AbsPath("/version").Do(ctx).Error(); err != nil {
		return fmt.Errorf("context %s: asking %s for its version: %w", name, cfg.Host, err)
	}
	return nil
}

// Pause implements ui.Backend.
func (c *Console) Pause() {
	if c.app.Autoscaler != nil {
		c.app.Autoscaler.Pause()
	}
}

// Resume implements ui.Backend.
func (c *Console) Resume() {
	if c.app.Autoscaler != nil {
		c.app.Autoscaler.Resume()
	}
}
