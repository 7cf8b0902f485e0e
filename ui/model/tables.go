package model

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/ui/render"
)

// Table builds the table a spec asks for: the kind's rows (rendered once per World), narrowed
// by the scope, filtered, sorted and, for nodes, grouped by capacity type and zone.
func (w *World) Table(s Spec) *render.Table {
	var group render.Grouper
	if s.Kind == KindNodes {
		group = render.GroupNodes
	}
	t := render.Build(Columns(s.Kind), w.scoped(s), s.Query, group)
	switch s.Kind {
	case KindNodes, KindPods, KindNodePools:
		t.Note = w.UsageNote()
	case KindRightSizing:
		t.Note = w.RightSizingNote()
	}
	return t
}

// scoped returns the rows of a spec's kind within its scope.
func (w *World) scoped(s Spec) []*render.Row {
	rows := w.scopedByObject(s)
	if s.Scope.Namespace == "" {
		return rows
	}
	return keep(rows, func(r *render.Row) bool {
		switch ref := r.Ref.(type) {
		case *corev1.Pod:
			return ref.Namespace == s.Scope.Namespace
		case render.Pending:
			return ref.Pod.Namespace == s.Scope.Namespace
		}
		return false
	})
}

// scopedByObject returns the rows of a spec's kind within the object its scope names.
func (w *World) scopedByObject(s Spec) []*render.Row {
	switch {
	case s.Kind == KindTouched:
		return w.touched(s.Scope.Entry)
	case s.Kind == KindPods && s.Scope.Node != "":
		n := w.Node(s.Scope.Node)
		if n == nil {
			return nil
		}
		return each(n.State.Pods, w.PodRow)
	case s.Kind == KindNodes && s.Scope.NodePool != "":
		return keep(w.Rows(KindNodes), func(r *render.Row) bool { return r.Ref.(*render.Node).NodePool == s.Scope.NodePool })
	}
	return w.Rows(s.Kind)
}

// Rows are every row of a kind, in the kind's own order, rendered once per World.
func (w *World) Rows(k Kind) []*render.Row {
	l := w.rows[k]
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.rows = w.render(k) })
	return l.rows
}

func (w *World) render(k Kind) []*render.Row {
	now := w.Now
	switch k {
	case KindPending:
		return each(w.Pending, func(p render.Pending) *render.Row { return render.PendingRow(p, now) })
	case KindNodePools:
		return each(w.Pools, func(p render.NodePool) *render.Row { return render.NodePoolRow(p, now) })
	case KindNodes:
		return each(w.Nodes, func(n *render.Node) *render.Row { return render.NodeRow(n, now) })
	case KindNodeClaims:
		return each(w.Claims(), func(c render.NodeClaim) *render.Row { return render.NodeClaimRow(c, now) })
	case KindPods:
		return each(w.Snapshot.Pods, w.PodRow)
	case KindDecisions:
		return entries(w.Entries, render.IsDecision, func(e *journal.Entry) *render.Row { return render.DecisionRow(e, now) })
	case KindInterruptions:
		return entries(w.Entries, render.IsInterruption, func(e *journal.Entry) *render.Row { return render.InterruptionRow(e, now) })
	case KindEvents:
		return entries(w.Entries, nil, func(e *journal.Entry) *render.Row { return render.EventRow(e, now) })
	case KindSkins:
		return each(w.Skins, func(name string) *render.Row { return render.SkinRow(name, name == w.Skin) })
	case KindContexts:
		return each(w.Contexts, func(name string) *render.Row { return render.ContextRow(name, name == w.Context) })
	case KindRightSizing:
		if w.RightSizing == nil || w.RightSizing.Report == nil {
			return nil
		}
		ws := w.RightSizing.Report.Workloads
		rows := make([]*render.Row, len(ws))
		for i := range ws {
			rows[i] = render.RightSizingRow(&ws[i])
		}
		return rows
	}
	return nil
}

// touched lists the nodes, then the pods, that a journal entry names, as they are now.
func (w *World) touched(seq uint64) []*render.Row {
	e := w.Entry(seq)
	if e == nil {
		return nil
	}
	rows := make([]*render.Row, 0, len(e.Nodes)+len(e.Pods))
	for _, name := range e.Nodes {
		rows = append(rows, render.TouchedRow(render.TouchedNode(name, w.Node(name))))
	}
	for _, key := range e.Pods {
		rows = append(rows, render.TouchedRow(render.TouchedPod(key, w.Pod(key), w.Now)))
	}
	return rows
}

func each[T any](xs []T, f func(T) *render.Row) []*render.Row {
	out := make([]*render.Row, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func entries(es []*journal.Entry, keepIt func(*journal.Entry) bool, f func(*journal.Entry) *render.Row) []*render.Row {
	var out []*render.Row
	for _, e := range es {
		if keepIt == nil || keepIt(e) {
			out = append(out, f(e))
		}
	}
	return out
}

func keep(rows []*render.Row, f func(*render.Row) bool) []*render.Row {
	var out []*render.Row
	for _, r := range rows {
		if f(r) {
			out = append(out, r)
		}
	}
	return out
}
