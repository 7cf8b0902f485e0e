package render

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Touched is one object a journal entry names, with what it is now (State and Ref are empty
// when the object is gone).
type Touched struct {
	Kind, Name string
	// State is the object's status now, or "gone".
	State string
	Tone  Tone
	Where string
	Ref   any
}

// TouchedColumns are the columns of the objects a decision touched.
func TouchedColumns() []Column {
	return []Column{
		{Name: "KIND", Sort: 'K'},
		{Name: "NAME", Sort: 'N'},
		{Name: "NOW", Sort: 'S'},
		{Name: "WHERE"},
	}
}

// TouchedRow renders an object a journal entry touched.
func TouchedRow(t Touched) *Row {
	return &Row{Key: t.Kind + ":" + t.Name, Cells: []string{t.Kind, t.Name, t.State, orNone(t.Where)}, Tone: t.Tone, Ref: t.Ref}
}

// TouchedPod is a pod a decision touched, as it is now (nil when gone).
func TouchedPod(name string, p *corev1.Pod, _ time.Time) Touched {
	if p == nil {
		return Touched{Kind: "Pod", Name: name, State: "gone", Tone: ToneCompleted}
	}
	status, tone := PodStatus(p)
	return Touched{Kind: "Pod", Name: name, State: status, Tone: tone, Where: p.Spec.NodeName, Ref: p}
}

// TouchedNode is a node a decision touched, as it is now (nil when gone).
func TouchedNode(name string, n *Node) Touched {
	if n == nil {
		return Touched{Kind: "Node", Name: name, State: "gone", Tone: ToneCompleted}
	}
	status, tone := NodeStatus(n.State)
	return Touched{Kind: "Node", Name: name, State: status, Tone: tone, Where: n.Zone, Ref: n}
}
