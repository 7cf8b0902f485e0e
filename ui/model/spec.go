package model

import "github.com/nodepilot/nodepilot/ui/render"

// Kind names a table the console can show.
type Kind string

// Kinds of table.
const (
	KindPending       Kind = "pending"
	KindNodePools     Kind = "nodepools"
	KindNodes         Kind = "nodes"
	KindNodeClaims    Kind = "nodeclaims"
	KindPods          Kind = "pods"
	KindDecisions     Kind = "decisions"
	KindInterruptions Kind = "interruptions"
	KindEvents        Kind = "events"
	KindSkins         Kind = "skins"
	// KindContexts is the kubeconfig's contexts, to switch to (:ctx).
	KindContexts Kind = "contexts"
	// KindRightSizing is each workload's requests against its use, and what fitting them saves.
	KindRightSizing Kind = "rightsizing"
	// KindTouched is the nodes and pods one journal entry names (a decision's drill-down).
	KindTouched Kind = "touched"
)

// Scope narrows a table to what a drill-down selected.
type Scope struct {
	// NodePool keeps the nodes (or NodeClaims) of one NodePool.
	NodePool string
	// Node keeps the pods of one node.
	Node string
	// Namespace keeps the pods (or pending pods) of one namespace.
	Namespace string
	// Entry is the journal entry whose objects KindTouched lists.
	Entry uint64
}

// Spec is one table to build: a kind, a scope and the operator's query.
type Spec struct {
	Kind  Kind
	Scope Scope
	Query render.Query
}

// Columns are the columns of a kind.
func Columns(k Kind) []render.Column {
	switch k {
	case KindPending:
		return render.PendingColumns()
	case KindNodePools:
		return render.NodePoolColumns()
	case KindNodes:
		return render.NodeColumns()
	case KindNodeClaims:
		return render.NodeClaimColumns()
	case KindPods:
		return render.PodColumns()
	case KindDecisions:
		return render.DecisionColumns()
	case KindInterruptions:
		return render.InterruptionColumns()
	case KindEvents:
		return render.EventColumns()
	case KindSkins:
		return render.SkinColumns()
	case KindContexts:
		return render.ContextColumns()
	case KindTouched:
		return render.TouchedColumns()
	case KindRightSizing:
		return render.RightSizingColumns()
	}
	return nil
}
