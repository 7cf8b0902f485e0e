package disruption

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Allowance is how many of a NodePool's nodes a disruption reason may take now, and why.
type Allowance struct {
	NodePool string
	Reason   karpv1.DisruptionReason
	// Allowed is how many more nodes may start disrupting now.
	Allowed int
	// Total is the NodePool's node count as Karpenter counts it for budgets: initialized nodes
	// whose instance is not terminating. Disrupting is how many of them are being disrupted
	// already or are not Ready.
	Total, Disrupting int
	// Budget describes the budget that sets the limit ("" when none applies).
	Budget string
	// Until is when that budget stops applying (zero: it always applies).
	Until time.Time
}

// String says it in an operator's words.
func (a Allowance) String() string {
	if a.Budget == "" {
		return fmt.Sprintf("no budget limits %s disruptions of nodepool %q now", a.Reason, a.NodePool)
	}
	return fmt.Sprintf("budget %s of nodepool %q allows %d more %s disruption(s) now (%d of %d nodes disrupting)",
		a.Budget, a.NodePool, a.Allowed, a.Reason, a.Disrupting, a.Total)
}

// Budgets are AllowanceFor each disruption reason, in karpv1.DisruptionReasons' order: what the
// named NodePool's budgets allow now, as the console explains them and the metrics report them;
// nil for a NodePool the snapshot does not have.
func Budgets(snap *state.Snapshot, nodePool string, now time.Time) []Allowance {
	np := snap.NodePool(nodePool)
	if np == nil {
		return nil
	}
	reasons := karpv1.DisruptionReasons()
	out := make([]Allowance, len(reasons))
	for i, r := range reasons {
		out[i] = AllowanceFor(np, snap.Nodes, r, now)
	}
	return out
}

// AllowanceFor computes, for one NodePool and reason, Karpenter's allowed disruptions: the
// smallest value among the budgets that apply to the reason and are active now (a count, or a
// percentage of the NodePool's nodes rounded up), less the nodes already disrupting. A malformed
// budget allows nothing; no active budget allows everything.
func AllowanceFor(np *karpv1.NodePool, nodes []*state.Node, reason karpv1.DisruptionReason, now time.Time) Allowance {
	a := Allowance{NodePool: np.Name, Reason: reason, Allowed: math.MaxInt32}
	for _, n := range nodes {
		// As Karpenter: a node not initialized yet takes no pods and does not count (so that
		// replacements being launched do not round a percentage up), one whose instance is
		// terminating is gone, and a node not Ready is as good as disrupting.
		if !n.Managed() || n.NodePool() != np.Name || !n.Initialized() ||
			meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeInstanceTerminating) {
			continue
		}
		a.Total++
		if n.MarkedForDeletion || !n.Ready() {
			a.Disrupting++
		}
	}
	for i, b := range np.Spec.Disruption.Budgets {
		if !appliesTo(b, reason) {
			continue
		}
		active, until, err := activeAt(b, now)
		label := describe(i, b)
		if err != nil {
			return Allowance{NodePool: np.Name, Reason: reason, Total: a.Total, Disrupting: a.Disrupting,
				Budget: fmt.Sprintf("%s (malformed: %v)", label, err)}
		}
		if !active {
			continue
		}
		n, err := value(b.Nodes, a.Total)
		if err != nil {
			return Allowance{NodePool: np.Name, Reason: reason, Total: a.Total, Disrupting: a.Disrupting,
				Budget: fmt.Sprintf("%s (malformed: %v)", label, err)}
		}
		if n < a.Allowed || a.Budget == "" {
			a.Allowed, a.Budget, a.Until = n, label, until
		}
	}
	if a.Budget != "" {
		a.Allowed = max(a.Allowed-a.Disrupting, 0)
	}
	return a
}

func appliesTo(b karpv1.Budget, reason karpv1.DisruptionReason) bool {
	if len(b.Reasons) == 0 {
		return true
	}
	for _, r := range b.Reasons {
		if r == reason {
			return true
		}
	}
	return false
}

// activeAt reports whether a budget applies at now: always without a schedule; with one, when a
// schedule hit (UTC) happened within the last duration. until is when the window closes.
func activeAt(b karpv1.Budget, now time.Time) (bool, time.Time, error) {
	if b.Schedule == nil {
		if b.Duration != nil {
			return false, time.Time{}, fmt.Errorf("duration without schedule")
		}
		return true, time.Time{}, nil
	}
	if b.Duration == nil {
		return false, time.Time{}, fmt.Errorf("schedule without duration")
	}
	sched, err := karpv1.ParseSchedule(*b.Schedule)
	if err != nil {
		return false, time.Time{}, err
	}
	start := sched.Next(now.UTC().Add(-b.Duration.Duration))
	if start.After(now.UTC()) {
		return false, time.Time{}, nil
	}
	return true, start.Add(b.Duration.Duration), nil
}

// value reads a budget's nodes: a count or a percentage of total, rounded up.
func value(nodes string, total int) (int, error) {
	if p, ok := strings.CutSuffix(nodes, "%"); ok {
		pct, err := strconv.Atoi(p)
		if err != nil || pct < 0 || pct > 100 {
			return 0, fmt.Errorf("nodes %q is not a percentage from 0%% to 100%%", nodes)
		}
		return int(math.Ceil(float64(total) * float64(pct) / 100)), nil
	}
	n, err := strconv.Atoi(nodes)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("nodes %q is neither a count nor a percentage", nodes)
	}
	return n, nil
}

func describe(i int, b karpv1.Budget) string {
	s := fmt.Sprintf("#%d (nodes %q", i+1, b.Nodes)
	if b.Schedule != nil && b.Duration != nil {
		s += fmt.Sprintf(", schedule %q for %s", *b.Schedule, b.Duration.Duration)
	}
	if len(b.Reasons) > 0 {
		rs := make([]string, len(b.Reasons))
		for i, r := range b.Reasons {
			rs[i] = string(r)
		}
		s += ", reasons " + strings.Join(rs, ",")
	}
	return s + ")"
}
