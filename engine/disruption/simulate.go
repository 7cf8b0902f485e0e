package disruption

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Simulation is what disrupting one node alone would do now: a Command, or why it would not
// happen (a Blocked* reason and its message).
type Simulation struct {
	Command *Command
	Reason  journal.Reason
	Message string
	// Order says where consolidation considers the node among the candidates now, and why (see
	// sortForConsolidation), when it is one.
	Order string
}

// splitWouldSave says, for a node that one replacement cannot take when split replacements are
// off, what a split would save, so that an operator knows what enabling it would do.
func splitWouldSave(sim *simulator, cand *Candidate, blk *block, opts Options) string {
	if opts.SplitSaving > 0 || (blk.reason != BlockedNeedsReplacements && blk.reason != BlockedNoCheaperType) {
		return ""
	}
	cmd, _ := sim.split([]*Candidate{cand}, opts.SpotToSpot) // splitSaving 0: any saving
	if cmd == nil {
		return ""
	}
	return fmt.Sprintf("; a split replacement would apply: %d nodes (%s) at $%.4f/h save %.0f%% (off: --split-saving enables it)",
		len(cmd.Replacements), strings.Join(cmd.ReplacementTypes(), ", "), cmd.PriceAfter, 100*cmd.Savings()/cmd.PriceBefore)
}

// Simulate says what consolidating one node alone would do on snap: deleting it when it runs no
// pod that must move, else what single-node consolidation would decide. Budgets and
// consolidateAfter are left out (the journal says when they block): this answers "and if they
// did not?". stuck is the controller's record (Controller.Stuck), nil without one; it places the
// node in the order as the controller's next pass would. The console's explain runs it; it
// changes nothing.
func Simulate(ctx context.Context, cloud cloudprovider.CloudProvider, snap *state.Snapshot, node string, opts Options, now time.Time, stuck map[string]time.Time) (Simulation, error) {
	sn := snap.NodeByName(node)
	if sn == nil {
		return Simulation{}, fmt.Errorf("node %q not found", node)
	}
	if !sn.Managed() {
		return Simulation{Reason: BlockedUnmanaged, Message: "no NodeClaim manages it: nodepilot never disrupts it"}, nil
	}
	cat := provisioning.LoadCatalog(ctx, cloud, snap)
	cand, blk := candidate(sn, snap, cat, newPDBIndex(snap.PDBs), now)
	if blk != nil {
		return Simulation{Reason: blk.reason, Message: blk.message}, nil
	}
	if len(cand.Reschedulable) == 0 {
		return Simulation{Command: &Command{Method: MethodEmptiness, Reason: karpv1.DisruptionReasonEmpty, Candidates: []*Candidate{cand}, PriceBefore: cand.Price}}, nil
	}
	order := consolidationOrder(snap, cat, node, now, stuck)
	p := &pass{spotToSpot: opts.SpotToSpot, totals: balancedTotals(snap, cat),
		sim: newSimulator(snap, cat, opts, nil)}
	cmd, _, blk := p.consolidate(MethodSingleNode, []*Candidate{cand})
	if blk != nil {
		return Simulation{Reason: blk.reason, Message: blk.message + splitWouldSave(p.sim, cand, blk, opts), Order: order}, nil
	}
	return Simulation{Command: cmd, Order: order}, nil
}

// consolidationOrder says where consolidation considers a node among every node of the
// NodePools that consolidate underutilized nodes (consolidateAfter and budgets aside), and why.
func consolidationOrder(snap *state.Snapshot, cat *provisioning.Catalog, node string, now time.Time, stuck map[string]time.Time) string {
	pdbs := newPDBIndex(snap.PDBs)
	var cands []*Candidate
	for _, sn := range snap.Nodes {
		if !sn.Managed() {
			continue
		}
		c, blk := candidate(sn, snap, cat, pdbs, now)
		if blk == nil && !c.NodePool.IsStatic() && c.NodePool.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyWhenEmpty {
			cands = append(cands, c)
		}
	}
	return orderOf(cands, node, stuck, snap.Requests)
}
