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

	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

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
	decided := c.entry(cmd, now, "disrupting node(s): "+cmd.describeValidated(), false)
	decided.Decision = cmd.Decision()
	if cmd.Approved != "" {
		decided.Events = append(decided.Events, candidateEvents(cmd, journal.Event{Type: corev1.EventTypeNormal, Reason: journal.ReasonConsolidationApproved, Message: cmd.Approved})...)
	}
	c.journal.Record(decided)
	var created []string
	var launching []journal.Event
	for _, r := range cmd.Replacements {
		np := c.cluster.Snapshot().NodePool(r.NodePool)
		if np == nil {
			return c.rollback(ctx, cmd, fmt.Errorf("replacement nodepool %q is gone", r.NodePool), now)
		}
		nc, err := provisioning.CreateNodeClaim(ctx, c.exec, c.cluster, np, r, fmt.Sprintf("to replace %v (%s)", cmd.Nodes(), cmd.Method))
		if err != nil {
			return c.rollback(ctx, cmd, fmt.Errorf("creating a replacement: %w", err), now)
		}
		created = append(created, nc.Name)
		launching = append(launching, journal.Event{Object: nc, Type: corev1.EventTypeNormal, Reason: journal.ReasonDisruptionLaunching,
			Message: "Launching NodeClaim: " + string(cmd.Reason)},
			journal.Event{Object: nc, Type: corev1.EventTypeNormal, Reason: journal.ReasonDisruptionWaitingReadiness, Message: "Waiting on readiness to continue disruption"})
		// Not nominated at launch: until it initializes it is no candidate anyway; then advance
		// nominates it for NominationTTL while the candidates' pods move, as Karpenter's nomination
		// window does, not for the whole replacement timeout.
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
			e.Events = append(e.Events, journal.Event{Object: cand.NodeClaim, Type: corev1.EventTypeNormal, Reason: journal.ReasonDisruptionTerminating,
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
		c.journal.Record(journal.Entry{Time: now, Kind: journal.KindDisruption, Reason: journal.ReasonStaleTaintRemoved, Nodes: []string{sn.Node.Name},
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
