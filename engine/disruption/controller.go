package disruption

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// Scheduling says how the simulations treat soft constraints and pack replacements.
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
	// pending is a consolidation decision waiting to be validated at validateAt.
	pending    *Command
	validateAt time.Time
	// inflight is a command waiting for its replacements to initialize.
	inflight *inflight
	// lastDryRun keys the latest dry-run decision, so a repeated one is journaled once.
	lastDryRun string
	// cache keeps the NodePools' instance type tables from one pass to the next.
	cache scheduling.Cache
	// told are the pods whose do-not-disrupt annotation was last found not to hold (told once).
	told map[types.UID]bool
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
		fresh, why := c.validate(snap, cat, cmd, now)
		if why != "" {
			c.journal.Record(journal.Entry{Time: now, Kind: journal.KindValidation, Method: cmd.Method, Reason: BlockedValidationRejected,
				Nodes: cmd.Nodes(), Message: fmt.Sprintf("abandoning %s after validation: %s", cmd.Method, why),
				Events: candidateEvents(cmd, journal.Event{Type: corev1.EventTypeNormal, Reason: "ConsolidationRejected",
					Message: fmt.Sprintf("Consolidation rejected: %s, reason: %s (savings: $%.2f)", cmd.Describe(), why, cmd.Savings())})})
			return nil
		}
		return c.execute(ctx, fresh, now)
	}
	p := c.newPass(snap, cat, now)
	cmd := p.decide()
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
	c.pending, c.validateAt = cmd, now.Add(c.opts.ValidationDelay)
	c.journal.Record(journal.Entry{Time: now, Kind: journal.KindValidation, Method: cmd.Method, Reason: ReasonValidating, Nodes: cmd.Nodes(),
		PriceBefore: cmd.PriceBefore, PriceAfter: cmd.PriceAfter, DryRun: c.exec.DryRun(),
		Message: fmt.Sprintf("validating %s in %s: %s", cmd.Method, c.opts.ValidationDelay, cmd.Describe()),
		Events: candidateEvents(cmd, journal.Event{Type: corev1.EventTypeNormal, Reason: "ConsolidationCandidate",
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
				e.Reason, e.Message = "InvalidDoNotDisruptAnnotation", fmt.Sprintf("pod %s/%s: %s", p.Namespace, p.Name, msg)
				e.Events = []journal.Event{{Object: p, Type: corev1.EventTypeWarning, Reason: "InvalidDoNotDisruptAnnotation", Message: msg}}
			} else if until, forever, ok := pods.DoNotDisruptUntil(p); ok && !forever && !now.Before(until) {
				msg := fmt.Sprintf("The %s grace period has elapsed, pod is now disruptable", karpv1.DoNotDisruptAnnotationKey)
				e.Reason, e.Message = "DoNotDisruptGracePeriodElapsed", fmt.Sprintf("pod %s/%s: %s", p.Namespace, p.Name, msg)
				e.Events = []journal.Event{{Object: p, Type: corev1.EventTypeNormal, Reason: "DoNotDisruptGracePeriodElapsed", Message: msg}}
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

func (c *Controller) newPass(snap *state.Snapshot, cat *provisioning.Catalog, now time.Time) *pass {
	p := &pass{now: now, spotToSpot: c.opts.SpotToSpot, multiMax: c.opts.MultiNodeMax, blocks: map[string]*block{}, allowances: map[string]Allowance{},
		totals: balancedTotals(snap, cat),
		sim: &simulator{snap: snap, cat: cat, pending: snap.PendingPods(), wellKnown: c.opts.WellKnownLabels, cache: &c.cache,
			opts: c.opts.Scheduling, splitSaving: c.opts.SplitSaving}}
	pdbs := newPDBIndex(snap.PDBs)
	for _, sn := range snap.Nodes {
		if !sn.Managed() {
			continue
		}
		cand, blk := candidate(sn, snap, cat, pdbs, now)
		if blk != nil {
			p.blocks[sn.Name()] = blk
			continue
		}
		p.candidates = append(p.candidates, cand)
	}
	sortByCost(p.candidates)
	return p
}

// decide runs the methods in Karpenter's order and returns the first command found.
func (p *pass) decide() *Command {
	if cmd := p.timed(MethodEmptiness, p.emptiness); cmd != nil {
		return cmd
	}
	if cmd := p.timed(MethodDrift, p.drift); cmd != nil {
		return cmd
	}
	var cands []*Candidate
	var singles map[*Candidate]*Command
	single := p.timed(MethodSingleNode, func() *Command {
		var first *Command
		cands = p.underutilized()
		singles, first = p.singleNode(cands)
		return first
	})
	if cmd := p.timed(MethodMultiNode, func() *Command { return p.multiNode(cands, singles) }); cmd != nil {
		return cmd
	}
	return single
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
			NodePool: sn.NodePool(), NodeClaims: []string{sn.NodeClaim.Name}}
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
			e.Events = append(e.Events, journal.Event{Object: b.pod, Type: corev1.EventTypeNormal, Reason: "DoNotDisruptUntil",
				Message: "The karpenter.sh/do-not-disrupt grace period will elapse at " + b.until.UTC().Format(time.RFC3339)})
		}
		c.journal.Block(name, e)
	}
}

// blockedEventReason is Karpenter's event reason for a node not disrupted: Unconsolidatable when
// consolidating it would not pay or cannot be done yet, DisruptionBlocked when a rule or its state
// forbids any disruption.
func blockedEventReason(blocked string) string {
	switch blocked {
	case BlockedNeedsReplacements, BlockedNoCheaperType, BlockedSpotToSpot, BlockedPodsCannotMove, BlockedPolicy,
		BlockedUnknownPrice, BlockedValidationRejected, BlockedConsolidateAfter:
		return "Unconsolidatable"
	}
	return "DisruptionBlocked"
}

// validate checks a consolidation decision again once ValidationDelay passed: the candidates
// must still be candidates within budget, and the decision must still hold (same kind of result,
// at no higher price). It returns the decision recomputed on the fresh state, or why it no longer holds.
func (c *Controller) validate(snap *state.Snapshot, cat *provisioning.Catalog, cmd *Command, now time.Time) (*Command, string) {
	p := c.newPass(snap, cat, now)
	byName := map[string]*Candidate{}
	for _, cand := range p.candidates {
		byName[cand.Name()] = cand
	}
	var fresh []*Candidate
	for _, old := range cmd.Candidates {
		cand, ok := byName[old.Name()]
		if !ok {
			why := "it is no longer a candidate"
			if b := p.blocks[old.Name()]; b != nil {
				why = b.message
			}
			return nil, fmt.Sprintf("node %s: %s", old.Name(), why)
		}
		if !p.consolidatable(cand) {
			return nil, fmt.Sprintf("node %s: %s", cand.Name(), p.blocks[cand.Name()].message)
		}
		fresh = append(fresh, cand)
	}
	if within := p.withinBudget(fresh, cmd.Reason); len(within) < len(fresh) {
		return nil, "the disruption budget no longer allows it: " + p.blocks[fresh[len(within)].Name()].message
	}
	if cmd.Method == MethodEmptiness {
		for _, cand := range fresh {
			if len(cand.Reschedulable) > 0 {
				return nil, fmt.Sprintf("node %s is no longer empty (%d pods)", cand.Name(), len(cand.Reschedulable))
			}
		}
		return &Command{Method: cmd.Method, Reason: cmd.Reason, Candidates: fresh, PriceBefore: cmd.PriceBefore}, ""
	}
	again, _, blk := p.consolidate(cmd.Method, fresh)
	switch {
	case blk != nil:
		return nil, blk.message
	case len(again.Replacements) != len(cmd.Replacements):
		return nil, fmt.Sprintf("it now needs %d replacement(s) instead of %d", len(again.Replacements), len(cmd.Replacements))
	case again.PriceAfter > cmd.PriceAfter:
		return nil, fmt.Sprintf("the replacement now costs $%.4f/h instead of $%.4f/h", again.PriceAfter, cmd.PriceAfter)
	}
	return again, ""
}

// execute carries a command out: taint the candidates, mark them, launch the replacements and,
// when there are none, delete the candidates at once.
func (c *Controller) execute(ctx context.Context, cmd *Command, now time.Time) error {
	held := false
	for _, cand := range cmd.Candidates {
		err := c.setDisruptedTaint(ctx, cand.Node.Node.Name, true)
		if executor.NotPerformed(err) {
			held = true // a dry run: every candidate's taint is journaled as it would be
			continue
		}
		if err != nil {
			return c.rollback(ctx, cmd, fmt.Errorf("tainting node %s: %w", cand.Name(), err), now)
		}
	}
	if held {
		c.wouldExecute(cmd, now)
		return nil
	}
	for _, cand := range cmd.Candidates {
		if err := c.setDisruptionReason(ctx, cand.NodeClaim.Name, cmd.Reason, now); err != nil {
			return c.rollback(ctx, cmd, fmt.Errorf("recording the disruption reason on nodeclaim %s: %w", cand.NodeClaim.Name, err), now)
		}
	}
	c.cluster.MarkForDeletion(claimNames(cmd)...)
	decided := c.entry(cmd, now, "disrupting node(s): "+cmd.Describe(), false)
	decided.Decision = cmd.Decision()
	if cmd.Approved != "" {
		decided.Events = append(decided.Events, candidateEvents(cmd, journal.Event{Type: corev1.EventTypeNormal, Reason: "ConsolidationApproved", Message: cmd.Approved})...)
	}
	c.journal.Record(decided)
	var created []string
	var launching []journal.Event
	for _, r := range cmd.Replacements {
		np := c.cluster.Snapshot().NodePool(r.NodePool)
		if np == nil {
			return c.rollback(ctx, cmd, fmt.Errorf("replacement nodepool %q is gone", r.NodePool), now)
		}
		nc, err := c.exec.CreateNodeClaim(ctx, provisioning.NodeClaimFor(np, r), fmt.Sprintf("to replace %v (%s)", cmd.Nodes(), cmd.Method))
		if err != nil {
			return c.rollback(ctx, cmd, fmt.Errorf("creating a replacement: %w", err), now)
		}
		created = append(created, nc.Name)
		launching = append(launching, journal.Event{Object: nc, Type: corev1.EventTypeNormal, Reason: "DisruptionLaunching",
			Message: "Launching NodeClaim: " + string(cmd.Reason)},
			journal.Event{Object: nc, Type: corev1.EventTypeNormal, Reason: "DisruptionWaitingReadiness", Message: "Waiting on readiness to continue disruption"})
		c.cluster.Nominate(nc.Name, now.Add(c.opts.ReplacementTimeout))
	}
	if len(created) == 0 {
		return c.deleteCandidates(ctx, cmd, now)
	}
	c.inflight = &inflight{cmd: cmd, replacements: created, started: now}
	c.journal.Record(journal.Entry{Time: now, Kind: journal.KindDisruption, Method: cmd.Method, Reason: ReasonReplacementsLaunched, NodeClaims: created,
		Nodes: cmd.Nodes(), Message: fmt.Sprintf("launched replacement nodeclaim(s) %v; waiting for them to initialize", created), Events: launching})
	return nil
}

// advance waits for a command's replacements to initialize, then deletes the candidates; a
// replacement that fails or times out rolls the command back.
func (c *Controller) advance(ctx context.Context, snap *state.Snapshot, now time.Time) error {
	in := c.inflight
	ready := 0
	for _, name := range in.replacements {
		sn := snap.NodeByName(name)
		if sn == nil {
			sn = nodeOfClaim(snap, name)
		}
		switch {
		case sn == nil || sn.NodeClaim.DeletionTimestamp != nil:
			c.inflight = nil
			return c.rollback(ctx, in.cmd, fmt.Errorf("replacement %s failed to launch", name), now)
		case sn.Initialized():
			ready++
		}
	}
	if ready < len(in.replacements) {
		if now.Sub(in.started) > c.opts.ReplacementTimeout {
			c.inflight = nil
			for _, name := range in.replacements {
				if err := c.exec.DeleteNodeClaim(ctx, name, "(replacement did not initialize)"); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			return c.rollback(ctx, in.cmd, fmt.Errorf("replacements %v did not initialize within %s", in.replacements, c.opts.ReplacementTimeout), now)
		}
		return nil
	}
	c.inflight = nil
	// The candidates' pods are about to move onto the replacements: keep them from looking empty.
	for _, name := range in.replacements {
		c.cluster.Nominate(name, now.Add(c.opts.NominationTTL))
	}
	return c.deleteCandidates(ctx, in.cmd, now)
}

func nodeOfClaim(snap *state.Snapshot, claim string) *state.Node {
	for _, sn := range snap.Nodes {
		if sn.NodeClaim != nil && sn.NodeClaim.Name == claim {
			return sn
		}
	}
	return nil
}

// deleteCandidates hands the candidates to termination.
func (c *Controller) deleteCandidates(ctx context.Context, cmd *Command, now time.Time) error {
	var errs []error
	for _, cand := range cmd.Candidates {
		if err := c.exec.DeleteNodeClaim(ctx, cand.NodeClaim.Name, "("+cmd.Method+")"); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		e := c.entry(cmd, now, fmt.Sprintf("deleting %d disrupted nodeclaim(s) (%s)", len(cmd.Candidates), cmd.Method), false)
		e.Reason = ReasonCandidatesDeleted
		for _, cand := range cmd.Candidates {
			e.Events = append(e.Events, journal.Event{Object: cand.NodeClaim, Type: corev1.EventTypeNormal, Reason: "DisruptionTerminating",
				Message: "Disrupting NodeClaim: " + string(cmd.Reason)})
		}
		c.journal.Record(e)
	}
	return errors.Join(errs...)
}

// rollback undoes a command that could not complete: the candidates lose the disrupted taint and
// stay.
func (c *Controller) rollback(ctx context.Context, cmd *Command, cause error, now time.Time) error {
	c.cluster.UnmarkForDeletion(claimNames(cmd)...)
	var errs []error
	for _, cand := range cmd.Candidates {
		if err := c.setDisruptedTaint(ctx, cand.Node.Node.Name, false); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
		if err := c.setDisruptionReason(ctx, cand.NodeClaim.Name, "", now); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	c.journal.Record(journal.Entry{Time: now, Kind: journal.KindDisruption, Method: cmd.Method, Reason: ReasonAbandoned, Nodes: cmd.Nodes(),
		NodePool: cmd.Candidates[0].NodePool.Name, Replacements: cmd.ReplacementTypes(),
		Message: fmt.Sprintf("abandoned %s, the nodes stay: %v", cmd.Method, cause)})
	return errors.Join(errs...)
}

// removeStale clears what a crashed process left on nodes no command owns: the disrupted taint,
// and the DisruptionReason condition of their NodeClaims.
func (c *Controller) removeStale(ctx context.Context, snap *state.Snapshot) error {
	disrupted := karpv1.DisruptedNoScheduleTaint()
	now := c.clock.Now()
	for _, sn := range snap.Nodes {
		if (sn.NodeClaim != nil && sn.NodeClaim.DeletionTimestamp != nil) || (sn.Node != nil && sn.Node.DeletionTimestamp != nil) {
			continue
		}
		// In a dry run each write is journaled as it would be, and the pass goes on to the next.
		if sn.NodeClaim != nil && meta.FindStatusCondition(sn.NodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason) != nil {
			if err := c.setDisruptionReason(ctx, sn.NodeClaim.Name, "", now); err != nil && !apierrors.IsNotFound(err) && !executor.NotPerformed(err) {
				return err
			}
		}
		if sn.Node == nil || !slices.ContainsFunc(sn.Node.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&disrupted) }) {
			continue
		}
		if err := c.setDisruptedTaint(ctx, sn.Node.Name, false); executor.NotPerformed(err) {
			continue
		} else if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c.journal.Record(journal.Entry{Time: now, Kind: journal.KindDisruption, Reason: "StaleTaintRemoved", Nodes: []string{sn.Node.Name},
			Message: fmt.Sprintf("removed the disrupted taint a previous run left on node %s", sn.Node.Name)})
	}
	return nil
}

// setDisruptionReason records on a NodeClaim why it is being disrupted, as Karpenter's
// DisruptionReason condition does (its drain labels the evictions with it), or removes the
// condition when reason is empty.
func (c *Controller) setDisruptionReason(ctx context.Context, nodeClaim string, reason karpv1.DisruptionReason, now time.Time) error {
	what := fmt.Sprintf("set %s=True (%s)", karpv1.ConditionTypeDisruptionReason, reason)
	if reason == "" {
		what = "remove condition " + karpv1.ConditionTypeDisruptionReason
	}
	_, err := c.exec.UpdateNodeClaimStatus(ctx, nodeClaim, what, func(o *karpv1.NodeClaim) error {
		if reason == "" {
			meta.RemoveStatusCondition(&o.Status.Conditions, karpv1.ConditionTypeDisruptionReason)
			return nil
		}
		meta.SetStatusCondition(&o.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeDisruptionReason, Status: metav1.ConditionTrue,
			Reason: string(reason), Message: string(reason), LastTransitionTime: metav1.NewTime(now)})
		return nil
	})
	return err
}

func (c *Controller) setDisruptedTaint(ctx context.Context, node string, on bool) error {
	disrupted := karpv1.DisruptedNoScheduleTaint()
	what := "taint " + disrupted.ToString()
	if !on {
		what = "remove taint " + disrupted.ToString()
	}
	_, err := c.exec.UpdateNode(ctx, node, what, func(n *corev1.Node) error {
		has := slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&disrupted) })
		switch {
		case on && !has:
			n.Spec.Taints = append(n.Spec.Taints, disrupted)
		case !on && has:
			n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&disrupted) })
		}
		return nil
	})
	return err
}

// wouldExecute journals a decision the dry-run executor held back, once per distinct decision.
func (c *Controller) wouldExecute(cmd *Command, now time.Time) {
	key := cmd.Method + fmt.Sprint(cmd.Nodes()) + fmt.Sprint(cmd.ReplacementTypes())
	if key == c.lastDryRun {
		return
	}
	c.lastDryRun = key
	e := c.entry(cmd, now, "would disrupt node(s): "+cmd.Describe(), true)
	e.Decision = cmd.Decision()
	c.journal.Record(e)
}

func (c *Controller) entry(cmd *Command, now time.Time, msg string, dryRun bool) journal.Entry {
	e := journal.Entry{Time: now, Kind: journal.KindDisruption, Method: cmd.Method, Reason: string(cmd.Reason), Message: msg,
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
	ReasonReplacementsLaunched = "ReplacementsLaunched"
	ReasonCandidatesDeleted    = "CandidatesDeleted"
	// ReasonValidating: a consolidation decision waits for the validation delay before it is
	// checked again.
	ReasonValidating = "Validating"
	// ReasonAbandoned: the command failed on its way (a replacement failed or timed out) and
	// its nodes stay.
	ReasonAbandoned = "Abandoned"
)

func claimNames(cmd *Command) []string {
	out := make([]string, len(cmd.Candidates))
	for i, cand := range cmd.Candidates {
		out[i] = cand.NodeClaim.Name
	}
	return out
}
