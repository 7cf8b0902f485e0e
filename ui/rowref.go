package ui

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/journal"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/rightsizing"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// gone is what current returns for an object that no longer exists.
type gone struct{}

// current finds a row's object as it is in a newer World: *render.Node, *corev1.Pod,
// render.NodePool, render.NodeClaim, *journal.Entry (entries never change), or gone.
func current(w *model.World, key string, ref any) any {
	switch o := ref.(type) {
	case *render.Node:
		if n := w.Node(o.Name); n != nil {
			return n
		}
	case *corev1.Pod:
		if p := w.Pod(o.Namespace + "/" + o.Name); p != nil {
			return p
		}
	case *karpv1.NodePool:
		if p, ok := w.Pool(o.Name); ok {
			return p
		}
	case *karpv1.NodeClaim:
		if c, ok := w.Claim(o.Name); ok {
			return c
		}
	case *journal.Entry:
		return o
	case *rightsizing.Workload:
		if wl := w.Workload(key); wl != nil {
			return wl
		}
	}
	return gone{}
}

// describeRef describes the objects DescribeNode and DescribeNodePool do not.
func describeRef(obj any, w *model.World) render.Text {
	switch o := obj.(type) {
	case *corev1.Pod:
		return render.DescribePod(o, w.Now)
	case render.NodeClaim:
		return render.DescribeNodeClaim(o.Claim, w.Now)
	case *journal.Entry:
		return render.DescribeEntry(o, w.Now)
	case *rightsizing.Workload:
		return render.DescribeWorkload(o, rightsizing.DefaultPolicy())
	}
	return errorText(fmt.Errorf("nothing to describe for %T", obj))
}

func goneText(key string) render.Text {
	var t render.Writer
	return t.Para(0, key+" is gone: it was deleted since.", render.ToneCompleted).Text()
}

func errorText(err error) render.Text {
	var t render.Writer
	return t.Para(0, err.Error(), render.ToneError).Text()
}
