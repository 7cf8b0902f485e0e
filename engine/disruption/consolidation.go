package disruption

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Methods, as Karpenter names them.
const (
	MethodEmptiness  = "Emptiness"
	MethodDrift      = "Drift"
	MethodMultiNode  = "MultiNodeConsolidation"
	MethodSingleNode = "SingleNodeConsolidation"
)

// minSpotToSpotTypes is how many cheaper instance types a spot-to-spot replacement needs, so that
// it does not chase the single cheapest spot pool into interruptions (Karpenter's figure).
const minSpotToSpotTypes = 15

// Command is one disruption decision: candidates to remove and, at most one for consolidation
// (any number for drift, and for a split replacement: Options.SplitSaving), NodeClaims to launch
// first.
type Command struct {
	Method       string
	Reason       karpv1.DisruptionReason
	Candidates   []*Candidate
	Replacements []*scheduling.NodeClaim
	// PriceBefore is what the candidates cost per hour; PriceAfter what the replacements will.
	PriceBefore, PriceAfter float64
	// Approved is, for a move of Balanced NodePools, how it scored against their bar.
	Approved string
	// Validated says how validation confirmed the command; "" before validation, and for drift,
	// which is not validated.
	Validated string
}

// newCommand is a command of a method removing cands, priced at what they cost.
func newCommand(method string, reason karpv1.DisruptionReason, cands []*Candidate) *Command {
	cmd := &Command{Method: method, Reason: reason, Candidates: cands}
	for _, c := range cands {
		cmd.PriceBefore += c.Price
	}
	return cmd
}

// Decision is "replace" when the command launches replacements, else "delete".
func (c *Command) Decision() string {
	if len(c.Replacements) > 0 {
		return "replace"
	}
	return "delete"
}

// Nodes names the candidates' nodes.
func (c *Command) Nodes() []string {
	out := make([]string, len(c.Candidates))
	for i, cand := range c.Candidates {
		out[i] = cand.Name()
	}
	return out
}

// Pods names the candidates' pods that must move.
func (c *Command) Pods() []string {
	var out []string
	for _, cand := range c.Candidates {
		for _, p := range cand.Reschedulable {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	return out
}

// ReplacementTypes names the instance type each replacement would launch first.
func (c *Command) ReplacementTypes() []string {
	out := make([]string, len(c.Replacements))
	for i, r := range c.Replacements {
		out[i] = r.InstanceType.Name
	}
	return out
}

// Split reports whether the command is a split replacement: one node replaced by several.
func (c *Command) Split() bool {
	return c.Reason == karpv1.DisruptionReasonUnderutilized && len(c.Candidates) == 1 && len(c.Replacements) > 1
}

// describeValidated is Describe and, once validated, how validation confirmed the command.
func (c *Command) describeValidated() string {
	if c.Validated == "" {
		return c.Describe()
	}
	return c.Describe() + "; " + c.Validated
}

// Savings is what the command takes off the bill, in dollars per hour.
func (c *Command) Savings() float64 { return c.PriceBefore - c.PriceAfter }

// Describe says what the command does, for logs and the console.
func (c *Command) Describe() string {
	action := "delete"
	switch {
	case c.Split():
		action = fmt.Sprintf("split into %d: %s", len(c.Replacements), strings.Join(c.ReplacementTypes(), ", "))
	case len(c.Replacements) > 0:
		action = fmt.Sprintf("replace with %s", strings.Join(c.ReplacementTypes(), ", "))
	}
	return fmt.Sprintf("%s: %s %d node(s) [%s] holding %d pod(s), $%.4f/h -> $%.4f/h (saves $%.4f/h)", c.Method, action,
		len(c.Candidates), strings.Join(c.Nodes(), " "), len(c.Pods()), c.PriceBefore, c.PriceAfter, c.Savings())
}

// simulator places pods as the provisioner would, with some nodes taken away. It prepares the
// solver once per pass: what the NodePools offer does not change from one candidate to the next.
type simulator struct {
	snap      *state.Snapshot
	cat       *provisioning.Catalog
	pending   []*corev1.Pod
	opts      scheduling.Options
	wellKnown []string
	cache     *scheduling.Cache
	prepared  *scheduling.Prepared
	nodes     []scheduling.ExistingNode
	// spread is nodes' rooms for the spread check, made when first needed.
	spread *spreadBase
	// splitSaving is Options.SplitSaving; forCost, made when first needed, simulates with pods
	// packed for cost, which opens smaller NodeClaims where Karpenter's packing grows one.
	splitSaving float64
	forCost     *simulator
}

// newSimulator simulates over snap with the controller's options. Its replacements grow as
// Karpenter packs, whatever price cliff the provisioner stops at: consolidation compares the
// fleet's price before and after itself, and a replacement at a cliff that still saves is a saving.
func newSimulator(snap *state.Snapshot, cat *provisioning.Catalog, opts Options, cache *scheduling.Cache) *simulator {
	so := opts.Scheduling
	so.PriceCliff = 0
	return &simulator{snap: snap, cat: cat, pending: snap.PendingPods(), wellKnown: opts.WellKnownLabels, cache: cache,
		opts: so, splitSaving: opts.SplitSaving}
}

func (s *simulator) prepare() {
	if s.prepared != nil {
		return
	}
	in := provisioning.Problem(s.snap, s.cat, s.snap.Pods, s.opts, s.wellKnown, nil)
	in.Cache = s.cache
	s.prepared, s.nodes = scheduling.Prepare(in), in.Nodes
}

// place simulates removing the candidates: their pods, and the pods pending now, go where the
// provisioner would put them. It returns the new NodeClaims that would hold candidate pods (new
// NodeClaims holding only pending pods would be launched anyway and do not count), or why the
// candidates' pods cannot all move.
func (s *simulator) place(cands []*Candidate) ([]*scheduling.NodeClaim, *block) {
	exclude := map[string]bool{}
	moving := map[*corev1.Pod]bool{}
	var podsToPlace []*corev1.Pod
	leaving := make([]*state.Node, 0, len(cands))
	for _, c := range cands {
		exclude[c.Name()] = true
		leaving = append(leaving, c.Node)
		for _, p := range c.Reschedulable {
			moving[p] = true
			podsToPlace = append(podsToPlace, p)
		}
	}
	podsToPlace = append(podsToPlace, s.pending...)
	s.prepare()
	// As Karpenter's simulation, the candidates no longer count against their NodePools' limits.
	results := s.prepared.Solve(podsToPlace, exclude, provisioning.LimitUsage(leaving, s.cat))
	for _, pe := range results.Unschedulable {
		if moving[pe.Pod] {
			why := "it fits nowhere"
			if len(pe.Reasons) > 0 {
				why = pe.Reasons[0].Message
			}
			return nil, &block{reason: BlockedPodsCannotMove, message: fmt.Sprintf("pod %s/%s could not run elsewhere: %s", pe.Pod.Namespace, pe.Pod.Name, why)}
		}
	}
	var replacements []*scheduling.NodeClaim
	for _, nc := range results.NewNodeClaims {
		if slices.ContainsFunc(nc.Pods, func(p *corev1.Pod) bool { return moving[p] }) {
			replacements = append(replacements, nc)
		}
	}
	if s.spread == nil {
		s.spread = newSpreadBase(s.nodes, s.snap.Requests)
	}
	if p := s.spread.spreads(slices.Collect(maps.Keys(exclude)), results, replacements, moving); p != nil {
		return nil, spreadBlock(p)
	}
	return replacements, nil
}

// consolidate decides whether removing the candidates lowers the bill: their pods must move onto
// the rest of the cluster, or onto one new NodeClaim strictly cheaper than all of them, or, for
// one node with SplitSaving set, onto several that together save at least that share, whichever
// costs less.
func (s *simulator) consolidate(method string, cands []*Candidate, spotToSpot bool) (*Command, *block) {
	cmd, blk := s.consolidateOnto(method, cands, spotToSpot)
	if method != MethodSingleNode || s.splitSaving <= 0 || (cmd != nil && len(cmd.Replacements) == 0) ||
		(blk != nil && blk.reason != BlockedNeedsReplacements && blk.reason != BlockedNoCheaperType) {
		return cmd, blk
	}
	split, why := s.split(cands, spotToSpot)
	switch {
	case split != nil && (cmd == nil || split.PriceAfter < cmd.PriceAfter):
		return split, nil
	case blk != nil && why != "":
		return nil, &block{reason: blk.reason, message: blk.message + "; " + why}
	}
	return cmd, blk
}

// consolidateOnto decides as Karpenter does: the candidates' pods move onto the rest of the
// cluster, or onto one new NodeClaim strictly cheaper than all of them.
func (s *simulator) consolidateOnto(method string, cands []*Candidate, spotToSpot bool) (*Command, *block) {
	replacements, blk := s.place(cands)
	if blk != nil {
		return nil, blk
	}
	cmd := newCommand(method, karpv1.DisruptionReasonUnderutilized, cands)
	switch len(replacements) {
	case 0:
		return cmd, nil
	case 1:
	default:
		return nil, &block{reason: BlockedNeedsReplacements,
			message: fmt.Sprintf("its pods need %d new nodes elsewhere, and consolidation launches at most one", len(replacements))}
	}
	r, blk := cheaperReplacement(replacements[0], cands, cmd.PriceBefore, spotToSpot)
	if blk != nil {
		return nil, blk
	}
	cmd.Replacements, cmd.PriceAfter = []*scheduling.NodeClaim{r}, r.PricePerHour()
	return cmd, nil
}

// cheaperReplacement narrows a replacement to the instance types cheaper than what it replaces,
// following Karpenter's rules for capacity types: a replacement that may be spot or on-demand is
// pinned to spot (its price assumed spot, it must not fall back to a dearer on-demand node), and a
// spot node is replaced by spot only when allowed and with enough cheaper types to choose from.
func cheaperReplacement(r *scheduling.NodeClaim, cands []*Candidate, before float64, spotToSpot bool) (*scheduling.NodeClaim, *block) {
	reqs := r.Requirements
	ct := reqs.Get(karpv1.CapacityTypeLabelKey)
	allowsSpot := ct == nil || ct.Has(karpv1.CapacityTypeSpot)
	allowsOnDemand := ct == nil || ct.Has(karpv1.CapacityTypeOnDemand)
	capacityType := karpv1.CapacityTypeOnDemand
	if allowsSpot && slices.ContainsFunc(r.InstanceTypes, func(it *cloudprovider.InstanceType) bool {
		_, ok := cheapest(it, reqs, karpv1.CapacityTypeSpot)
		return ok
	}) {
		capacityType = karpv1.CapacityTypeSpot
		if allowsOnDemand {
			reqs = reqs.Add(requirements.New(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeSpot))
		}
	}
	allSpot := !slices.ContainsFunc(cands, func(c *Candidate) bool { return c.CapacityType != karpv1.CapacityTypeSpot })
	if allSpot && capacityType == karpv1.CapacityTypeSpot && !spotToSpot {
		return nil, &block{reason: BlockedSpotToSpot, message: "replacing spot nodes with a spot node is off (spot-to-spot consolidation is disabled)"}
	}
	type priced struct {
		it       *cloudprovider.InstanceType
		offering cloudprovider.Offering
	}
	var cheaper []priced
	for _, it := range r.InstanceTypes {
		if o, ok := cheapest(it, reqs, capacityType); ok && o.Price < before {
			cheaper = append(cheaper, priced{it, o})
		}
	}
	slices.SortStableFunc(cheaper, func(a, b priced) int { return cmp.Compare(a.offering.Price, b.offering.Price) })
	switch {
	case len(cheaper) == 0:
		return nil, &block{reason: BlockedNoCheaperType,
			message: fmt.Sprintf("no instance type that could hold its pods costs less than the $%.4f/h it costs now", before)}
	case allSpot && capacityType == karpv1.CapacityTypeSpot && len(cheaper) < minSpotToSpotTypes:
		return nil, &block{reason: BlockedNoCheaperType,
			message: fmt.Sprintf("spot-to-spot consolidation needs %d cheaper instance types, only %d are", minSpotToSpotTypes, len(cheaper))}
	case allSpot && capacityType == karpv1.CapacityTypeSpot:
		cheaper = cheaper[:minSpotToSpotTypes]
	}
	out := *r
	out.Requirements = reqs
	out.InstanceTypes = make([]*cloudprovider.InstanceType, len(cheaper))
	for i, p := range cheaper {
		out.InstanceTypes[i] = p.it
	}
	out.InstanceType, out.Offering = cheaper[0].it, cheaper[0].offering
	return &out, nil
}

// cheapest is an instance type's cheapest available offering of a capacity type that reqs allow.
func cheapest(it *cloudprovider.InstanceType, reqs requirements.Requirements, capacityType string) (cloudprovider.Offering, bool) {
	var best cloudprovider.Offering
	found := false
	for _, o := range it.Offerings.Compatible(reqs) {
		if o.CapacityType == capacityType && (!found || o.Price < best.Price) {
			best, found = o, true
		}
	}
	return best, found
}
