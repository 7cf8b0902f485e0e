package disruption

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Options tune disruption.
type Options struct {
	// Period is how often a pass runs without a change (Karpenter: 10 s).
	Period time.Duration
	// ValidationDelay is how long a consolidation decision waits before it is checked again and
	// carried out (Karpenter: 15 s).
	ValidationDelay time.Duration
	// ReplacementTimeout is how long a command waits for its replacements to initialize.
	ReplacementTimeout time.Duration
	// NominationTTL is how long replacements are kept from disruption once the candidates'
	// pods start moving onto them.
	NominationTTL time.Duration
	// SpotToSpot allows replacing spot nodes by a cheaper spot node.
	SpotToSpot bool
	// MultiNodeMax caps the candidates of one multi-node consolidation (Karpenter: 100).
	MultiNodeMax int
	// SplitSaving, when above zero, lets single-node consolidation replace one node by two or
	// more (packed for cost: scheduling.PackingCost) when together they cost at least this share
	// of its price less, such as 0.2. Karpenter never does: zero, the default, keeps its rule of
	// at most one replacement.
	SplitSaving float64
	// Scheduling says how the simulations treat soft constraints and pack replacements; they
	// take no price cliff (see newSimulator).
	Scheduling      scheduling.Options
	WellKnownLabels []string
}

// DefaultOptions are Karpenter's.
func DefaultOptions() Options {
	return Options{Period: 10 * time.Second, ValidationDelay: 15 * time.Second, ReplacementTimeout: 10 * time.Minute, NominationTTL: 20 * time.Second,
		MultiNodeMax: 100, Scheduling: scheduling.DefaultOptions()}
}

// Controller disrupts nodes one command at a time: emptiness, drift, multi-node and single-node
// consolidation, in Karpenter's order, within budgets, PodDisruptionBudgets and do-not-disrupt.
type Controller struct {
	cluster *state.Cluster
	exec    *executor.Executor
	cloud   cloudprovider.CloudProvider
	journal *journal.Journal
	clock   clock.WithTicker
	opts    Options

	started bool
	// pending is a consolidation decision waiting to be validated at validateAt; decidedOn is
	// what the pass that decided it saw.
	pending    *Command
	validateAt time.Time
	decidedOn  seen
	// inflight is a command waiting for its replacements to initialize.
	inflight *inflight
	// lastDryRun keys the latest dry-run decision, so a repeated one is journaled once.
	lastDryRun string
	// cache keeps the NodePools' instance type tables from one pass to the next.
	cache scheduling.Cache
	// told are the pods whose do-not-disrupt annotation was last found not to hold (told once).
	told map[types.UID]bool
	// stuck carries pass.stuck from one pass to the next, and to other goroutines (Stuck). A pass
	// builds a new map, so a stored one never changes.
	stuck atomic.Pointer[map[string]time.Time]
	// settled spares passes over an unchanged cluster the simulations of the last that found
	// no consolidation move (pass.settled).
	settled *settled
}

type inflight struct {
	cmd          *Command
	replacements []string
	started      time.Time
}

// New returns a disruption controller that writes through exec and reads instance types from
// cloud.
func New(cluster *state.Cluster, exec *executor.Executor, cloud cloudprovider.CloudProvider, j *journal.Journal, c clock.WithTicker, opts Options) *Controller {
	return &Controller{cluster: cluster, exec: exec, cloud: cloud, journal: j, clock: c, opts: opts}
}

// Stuck are the candidates the last pass's single-node consolidation found no move for, by node,
// with their ConsolidatableAt then: the next pass considers them last while that is unchanged.
// Any goroutine may call it; the map is not to be changed.
func (c *Controller) Stuck() map[string]time.Time {
	if m := c.stuck.Load(); m != nil {
		return *m
	}
	return nil
}

// Busy reports whether a command is in flight or waits for validation: then a change in the
// cluster may be what it waits for, and it should look at once; otherwise a pass every Period is
// enough, as Karpenter's. Call it from the goroutine that calls Reconcile.
func (c *Controller) Busy() bool { return c.inflight != nil || c.pending != nil }

// Reconcile makes one pass: it advances the command in flight, or validates the pending one, or
// looks for a new one.
func (c *Controller) Reconcile(ctx context.Context) error {
	ctx = cloudprovider.WithController(ctx, "disruption")
	snap := c.cluster.Snapshot()
	if !snap.Synced {
		return nil
	}
	if !c.started {
		c.started = true
		if err := c.removeStale(ctx, snap); err != nil {
			return err
		}
	}
	now := c.clock.Now()
	c.reportDoNotDisrupt(snap, now)
	if c.inflight != nil {
		return c.advance(ctx, snap, now)
	}
	cat := provisioning.LoadCatalog(ctx, c.cloud, snap)
	if c.pending != nil {
		if now.Before(c.validateAt) {
			return nil
		}
		cmd := c.pending
		c.pending = nil
		fresh, why := c.validate(snap, cat, cmd, c.decidedOn, now)
		if why != "" {
			c.journal.Record(journal.Entry{Time: now, Kind: journal.KindValidation, Method: cmd.Method, Reason: BlockedValidationRejected,
				Nodes: cmd.Nodes(), Message: fmt.Sprintf("abandoning %s after validation: %s", cmd.Method, why),
				Events: candidateEvents(cmd, journal.Event{Type: corev1.EventTypeNormal, Reason: journal.ReasonConsolidationRejected,
					Message: fmt.Sprintf("Consolidation rejected: %s, reason: %s (savings: $%.2f)", cmd.Describe(), why, cmd.Savings())})})
			return nil
		}
		return c.execute(ctx, fresh, now)
	}
	p := c.newPass(snap, cat, now)
	p.settled = c.settled
	cmd := p.decide()
	stuck := p.stuck // not &p.stuck, which would keep the pass and its snapshot
	c.stuck.Store(&stuck)
	switch {
	case cmd != nil:
		c.settled = nil
	case !p.skipped:
		c.settled = p.settle()
	}
	for _, m := range p.measures {
		c.journal.Measure(m)
	}
	c.recordBlocks(p, cmd)
	switch {
	case cmd == nil:
		return nil
	case cmd.Method == MethodDrift:
		return c.execute(ctx, cmd, now)
	}
	c.pending, c.validateAt, c.decidedOn = cmd, now.Add(c.opts.ValidationDelay), seenIn(snap, cat)
	c.journal.Record(journal.Entry{Time: now, Kind: journal.KindValidation, Method: cmd.Method, Reason: ReasonValidating, Nodes: cmd.Nodes(),
		PriceBefore: cmd.PriceBefore, PriceAfter: cmd.PriceAfter, DryRun: c.exec.DryRun(),
		Message: fmt.Sprintf("validating %s in %s: %s", cmd.Method, c.opts.ValidationDelay, cmd.Describe()),
		Events: candidateEvents(cmd, journal.Event{Type: corev1.EventTypeNormal, Reason: journal.ReasonConsolidationCandidate,
			Message: fmt.Sprintf("Consolidation candidate: %s (savings: $%.2f)", cmd.Describe(), cmd.Savings())})})
	return nil
}

// reportDoNotDisrupt tells, once per pod of a managed node, what Karpenter tells of a
// karpenter.sh/do-not-disrupt annotation that no longer holds: a value that is invalid and
// ignored (a warning), or a grace period that has elapsed.
func (c *Controller) reportDoNotDisrupt(snap *state.Snapshot, now time.Time) {
	told := map[types.UID]bool{}
	for _, sn := range snap.Nodes {
		if !sn.Managed() {
			continue
		}
		for _, p := range sn.Pods {
			e := journal.Entry{Time: now, Kind: journal.KindDisruption, Nodes: []string{sn.Name()}, NodePool: sn.NodePool(), Pods: []string{p.Namespace + "/" + p.Name}}
			if err := pods.InvalidDoNotDisrupt(p); err != nil {
				msg := fmt.Sprintf("Invalid %s annotation: %v, ignoring annotation", karpv1.DoNotDisruptAnnotationKey, err)
				e.Reason, e.Message = journal.ReasonInvalidDoNotDisruptAnnotation, fmt.Sprintf("pod %s/%s: %s", p.Namespace, p.Name, msg)
				e.Events = []journal.Event{{Object: p, Type: corev1.EventTypeWarning, Reason: journal.ReasonInvalidDoNotDisruptAnnotation, Message: msg}}
			} else if until, forever, ok := pods.DoNotDisruptUntil(p); ok && !forever && !now.Before(until) {
				msg := fmt.Sprintf("The %s grace period has elapsed, pod is now disruptable", karpv1.DoNotDisruptAnnotationKey)
				e.Reason, e.Message = journal.ReasonDoNotDisruptGracePeriodElapsed, fmt.Sprintf("pod %s/%s: %s", p.Namespace, p.Name, msg)
				e.Events = []journal.Event{{Object: p, Type: corev1.EventTypeNormal, Reason: journal.ReasonDoNotDisruptGracePeriodElapsed, Message: msg}}
			} else {
				continue
			}
			told[p.UID] = true
			if !c.told[p.UID] {
				c.journal.Record(e)
			}
		}
	}
	c.told = told
}

// candidateEvents is the event on each candidate's node and NodeClaim.
func candidateEvents(cmd *Command, ev journal.Event) []journal.Event {
	var out []journal.Event
	for _, cand := range cmd.Candidates {
		for _, obj := range []runtime.Object{cand.Node.Node, cand.NodeClaim} {
			ev.Object = obj
			out = append(out, ev)
		}
	}
	return out
}

// recordBlocks keeps, per node, why it is not being disrupted now.
func (c *Controller) recordBlocks(p *pass, cmd *Command) {
	taken := map[string]bool{}
	if cmd != nil {
		for _, n := range cmd.Nodes() {
			taken[n] = true
		}
	}
	for _, sn := range p.sim.snap.Nodes {
		name := sn.Name()
		if sn.Deleting() {
			continue // termination keeps its blocker (a drain held by a PDB) until the node is gone
		}
		b, blocked := p.blocks[name]
		if taken[name] || !sn.Managed() || !blocked {
			c.journal.Unblock(name)
			continue
		}
		e := journal.Entry{Time: p.now, Reason: b.reason, Message: name + ": " + b.message, Until: b.until,
			NodePool: sn.NodePool(), NodeClaims: []string{sn.NodeClaim.Name}, Forbids: Forbidden(b.reason)}
		// As Karpenter, tell it on the node and the NodeClaim (the journal records it, and so the
		// events, only when the reason changes).
		if b.reason != BlockedStatic { // Karpenter passes static nodes over in silence
			ev := journal.Event{Type: corev1.EventTypeNormal, Reason: blockedEventReason(b.reason), Message: b.message}
			if sn.Node != nil {
				ev.Object = sn.Node
				e.Events = append(e.Events, ev)
			}
			ev.Object = sn.NodeClaim
			e.Events = append(e.Events, ev)
		}
		if b.pod != nil && !b.until.IsZero() {
			e.Events = append(e.Events, journal.Event{Object: b.pod, Type: corev1.EventTypeNormal, Reason: journal.ReasonDoNotDisruptUntil,
				Message: "The karpenter.sh/do-not-disrupt grace period will elapse at " + b.until.UTC().Format(time.RFC3339)})
		}
		c.journal.Block(name, e)
	}
}

// blockedEventReason is Karpenter's event reason for a node not disrupted: Unconsolidatable when
// consolidating it would not pay or cannot be done yet, DisruptionBlocked when a rule or its state
// forbids any disruption.
func blockedEventReason(blocked journal.Reason) journal.Reason {
	switch blocked {
	case BlockedNeedsReplacements, BlockedNoCheaperType, BlockedSpotToSpot, BlockedPodsCannotMove, BlockedPolicy,
		BlockedUnknownPrice, BlockedValidationRejected, BlockedConsolidateAfter:
		return journal.ReasonUnconsolidatable
	}
	return journal.ReasonDisruptionBlocked
}

// wouldExecute journals a decision the dry-run executor held back, once per distinct decision.
func (c *Controller) wouldExecute(cmd *Command, now time.Time) {
	key := cmd.Method + fmt.Sprint(cmd.Nodes()) + fmt.Sprint(cmd.ReplacementTypes())
	if key == c.lastDryRun {
		return
	}
	c.lastDryRun = key
	e := c.entry(cmd, now, "would disrupt node(s): "+cmd.describeValidated(), true)
	e.Decision = cmd.Decision()
	c.journal.Record(e)
}

func (c *Controller) entry(cmd *Command, now time.Time, msg string, dryRun bool) journal.Entry {
	e := journal.Entry{Time: now, Kind: journal.KindDisruption, Method: cmd.Method, Reason: journal.Reason(cmd.Reason), Message: msg,
		Nodes: cmd.Nodes(), NodeClaims: claimNames(cmd), Pods: cmd.Pods(), Replacements: cmd.ReplacementTypes(),
		PriceBefore: cmd.PriceBefore, PriceAfter: cmd.PriceAfter, DryRun: dryRun}
	if len(cmd.Candidates) > 0 {
		first := cmd.Candidates[0]
		e.NodePool, e.CapacityType, e.Zone = first.NodePool.Name, first.CapacityType, first.Zone
	}
	for _, cand := range cmd.Candidates {
		if cand.CapacityType != e.CapacityType {
			e.CapacityType = ""
		}
		if cand.Zone != e.Zone {
			e.Zone = ""
		}
	}
	return e
}

// Reasons of the entries that follow a decision.
const (
	ReasonReplacementsLaunched journal.Reason = "ReplacementsLaunched"
	ReasonCandidatesDeleted    journal.Reason = "CandidatesDeleted"
	// ReasonValidating: a consolidation decision waits for the validation delay before it is
	// checked again.
	ReasonValidating journal.Reason = "Validating"
	// ReasonAbandoned: the command failed on its way (a replacement failed or timed out) and
	// its nodes stay.
	ReasonAbandoned journal.Reason = "Abandoned"
)

func claimNames(cmd *Command) []string {
	out := make([]string, len(cmd.Candidates))
	for i, cand := range cmd.Candidates {
		out[i] = cand.NodeClaim.Name
	}
	return out
}
