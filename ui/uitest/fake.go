package uitest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/usage"
)

// Fake is a ui.Backend over a generated cluster. Its actions change the cluster state and the
// journal as the real backend would, and are recorded in Calls.
type Fake struct {
	// Clock is the fake clock every age is computed against.
	Clock   *clocktesting.FakeClock
	Cluster *state.Cluster

	journal *journal.Journal
	outcome *provisioning.Outcome
	gen     *generator
	running []*corev1.Pod

	mu    sync.Mutex
	info  ui.Info
	calls []string
	churn uint64
	// explainErr, when set, fails every explanation.
	explainErr error
	// usage, when set, is what Usage returns.
	usage *usage.Snapshot
	// contexts are the kubeconfig's contexts Contexts lists; checkErr fails CheckContext.
	contexts []string
	checkErr error
}

// New generates a cluster and serves it.
func New(cfg Config) *Fake {
	clk := clocktesting.NewFakeClock(Now())
	g := &generator{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)), now: Now()}
	f := &Fake{Clock: clk, Cluster: state.NewCluster(clk), journal: journal.New(max(2000, 2*cfg.Entries)), gen: g,
		info:     ui.Info{Context: "kind-nodepilot", Cluster: "nodepilot-demo", KubernetesVersion: "v1.33.1"},
		contexts: []string{"kind-nodepilot", "prod-eu", "staging"}}
	w := g.fill(f.Cluster)
	g.record(f.journal, w)
	f.outcome = g.outcome(w)
	f.running = w.running
	return f
}

// SetInfo replaces what Info returns (read-only, dry-run...).
func (f *Fake) SetInfo(i ui.Info) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.info = i
}

// SetContexts replaces the kubeconfig's contexts that Contexts lists.
func (f *Fake) SetContexts(names ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.contexts = names
}

// FailCheckContext makes CheckContext fail with err (nil: every listed context answers).
func (f *Fake) FailCheckContext(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checkErr = err
}

// FailExplanations makes every explanation fail with err (nil restores them).
func (f *Fake) FailExplanations(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.explainErr = err
}

// Calls are the actions called so far, in order ("cordon node", "drain node"...).
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *Fake) called(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

// Snapshot implements ui.Backend.
func (f *Fake) Snapshot() *state.Snapshot { return f.Cluster.Snapshot() }

// Changes implements ui.Backend.
func (f *Fake) Changes() <-chan struct{} { return f.Cluster.Subscribe() }

// Journal implements ui.Backend.
func (f *Fake) Journal() journal.Snapshot { return f.journal.Snapshot() }

// JournalChanges implements ui.Backend.
func (f *Fake) JournalChanges() <-chan struct{} { return f.journal.Subscribe() }

// Budgets implements ui.Backend, at the fake's clock.
func (f *Fake) Budgets(nodePool string) []disruption.Allowance {
	return disruption.Budgets(f.Cluster.Snapshot(), nodePool, Now())
}

// Provisioning implements ui.Backend.
func (f *Fake) Provisioning() *provisioning.Outcome { return f.outcome }

// Price implements ui.Backend: catalog on-demand prices from the Pricing API read seven minutes
// ago, and synthetic spot prices.
func (f *Fake) Price(sn *state.Node) (cost.Price, bool) {
	l := sn.Labels()
	p := cost.Price{InstanceType: l[corev1.LabelInstanceTypeStable], Zone: l[corev1.LabelTopologyZone], CapacityType: l[karpv1.CapacityTypeLabelKey]}
	it, ok := findType(p.InstanceType)
	if !ok {
		return p, false
	}
	asOf := Now().Add(-7 * time.Minute)
	p.PerHour, p.Source = it.onDemand, cloudprovider.PriceSource{Kind: cloudprovider.PricePricingAPI, AsOf: asOf}
	if p.CapacityType == "spot" {
		p.PerHour, p.Source = it.onDemand*spotDiscount, cloudprovider.PriceSource{Kind: cloudprovider.PriceSynthetic, AsOf: asOf}
	}
	return p, true
}

// ExplainPod implements ui.Backend: the report of the provisioner's last pass for the pod, or
// the one every big pending pod gets.
func (f *Fake) ExplainPod(_ context.Context, pod *corev1.Pod) (*scheduling.PodError, error) {
	f.called("explain pod %s/%s", pod.Namespace, pod.Name)
	if err := f.failure(); err != nil {
		return nil, err
	}
	for _, pe := range f.outcome.Results.Unschedulable {
		if pe.Pod.Namespace == pod.Namespace && pe.Pod.Name == pod.Name {
			return pe, nil
		}
	}
	if pod.Spec.NodeName != "" {
		return nil, nil
	}
	return podError(pod), nil
}

// ExplainNode implements ui.Backend: the journal's blocker, and a consolidation that replaces
// the node with a spot c6i.large (or deletes it when empty).
func (f *Fake) ExplainNode(_ context.Context, name string) (ui.NodeExplanation, error) {
	f.called("explain node %s", name)
	if err := f.failure(); err != nil {
		return ui.NodeExplanation{}, err
	}
	var x ui.NodeExplanation
	if e, ok := f.journal.WhyNot(name); ok {
		x.Blocked = &e
	}
	sn := f.Cluster.Snapshot().NodeByName(name)
	if sn == nil {
		return x, fmt.Errorf("node %q not found", name)
	}
	price, ok := f.Price(sn)
	if !ok {
		return x, nil
	}
	c := &ui.Consolidation{PriceBefore: price.PerHour}
	cheap, _ := findType("c6i.large")
	switch after := cheap.onDemand * spotDiscount; {
	case len(sn.Pods) == 0:
		c.Decision = "delete"
	case after < price.PerHour:
		c.Decision, c.Replacements, c.PriceAfter = "replace", []string{"c6i.large"}, after
	default:
		c.PriceAfter, c.Reason = price.PerHour, "NoCheaperType: no instance type that fits its pods is cheaper"
	}
	if len(sn.Pods) > 0 {
		c.Order = "1 of 1 candidates: its type is among the NodePool's best value for its pods: Karpenter's order, cheapest to disrupt first"
	}
	x.Consolidation = c
	return x, nil
}

func (f *Fake) failure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.explainErr
}

// Info implements ui.Backend.
func (f *Fake) Info() ui.Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.info
}

// Cordon implements ui.Backend.
func (f *Fake) Cordon(_ context.Context, node string, on bool) error {
	f.called("cordon %s %v", node, on)
	sn := f.Cluster.Snapshot().NodeByName(node)
	if sn == nil || sn.Node == nil {
		return fmt.Errorf("node %q not found", node)
	}
	n := sn.Node.DeepCopy()
	n.Spec.Unschedulable = on
	f.Cluster.UpdateNode(n)
	return nil
}

// Drain implements ui.Backend: it cordons the node and records the drain.
func (f *Fake) Drain(ctx context.Context, node string) error {
	if err := f.Cordon(ctx, node, true); err != nil {
		return err
	}
	f.called("drain %s", node)
	f.journal.Record(journal.Entry{Time: f.Clock.Now(), Kind: journal.KindTermination, Reason: "Drained", Nodes: []string{node},
		Message: "drained node " + node + " by hand"})
	return nil
}

// DeleteNodeClaim implements ui.Backend: it marks the NodeClaim for deletion.
func (f *Fake) DeleteNodeClaim(_ context.Context, name string) error {
	f.called("delete nodeclaim %s", name)
	f.Cluster.MarkForDeletion(name)
	f.journal.Record(journal.Entry{Time: f.Clock.Now(), Kind: journal.KindTermination, Reason: "Deleted", NodeClaims: []string{name},
		Message: "deleted nodeclaim " + name + " by hand"})
	return nil
}

// Contexts implements ui.Backend: the contexts SetContexts gave (kind-nodepilot, prod-eu and
// staging at first), sorted, and Info's context as the current one.
func (f *Fake) Contexts() ([]string, string, error) {
	f.called("contexts")
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(slices.Values(f.contexts)), f.info.Context, nil
}

// CheckContext implements ui.Backend: a listed context answers unless FailCheckContext says
// otherwise; another does not exist.
func (f *Fake) CheckContext(_ context.Context, name string) error {
	f.called("check context %s", name)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case !slices.Contains(f.contexts, name):
		return fmt.Errorf("context %s: the kubeconfig has no such context", name)
	case f.checkErr != nil:
		return fmt.Errorf("context %s: %w", name, f.checkErr)
	}
	return nil
}

// Pause implements ui.Backend.
func (f *Fake) Pause() {
	f.called("pause")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.info.Paused = true
}

// Resume implements ui.Backend.
func (f *Fake) Resume() {
	f.called("resume")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.info.Paused = false
}

// Churn changes n running pods (a new label value each), as a busy cluster's informers would.
func (f *Fake) Churn(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		if len(f.running) == 0 {
			return
		}
		f.churn++
		i := int(f.churn*2654435761) % len(f.running)
		if i < 0 {
			i = -i
		}
		p := f.running[i].DeepCopy()
		p.Labels["churn"] = fmt.Sprint(f.churn)
		p.ResourceVersion = fmt.Sprint(f.churn)
		f.running[i] = p
		f.Cluster.UpdatePod(p)
	}
}

// Advance moves the fake clock.
func (f *Fake) Advance(d time.Duration) { f.Clock.Step(d) }

func names(ps []*corev1.Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}
