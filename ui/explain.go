package ui

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// explain opens the explanation of the selected object: a pod's explainer report, a node's
// disruption status and saving, a NodePool's budgets.
func (c *Console) explain(p *pane) {
	r := p.selected()
	if r == nil {
		return
	}
	s := selectionOf(r)
	switch {
	case s.pod != nil:
		c.explainPod(s.pod)
	case s.node != "":
		c.explainNode(s.node)
	case s.pool != nil:
		name := s.pool.Name
		c.views.push(newTextView("explain "+name, "Explain NodePool "+name, c.pal, func(w *model.World) render.Text { return explainPool(w, name) }))
	case s.claim != "":
		c.flash.warn("NodeClaim " + s.claim + " has no node yet: nothing disrupts it before it registers")
	default:
		c.flash.warn("x explains pods, nodes and NodePools")
	}
}

// explainPod asks the backend's explainer off the UI goroutine; the view shows the report
// when it comes.
func (c *Console) explainPod(pod *corev1.Pod) {
	key := pod.Namespace + "/" + pod.Name
	v := newTextView("explain "+key, "Explain pod "+key, c.pal, nil)
	c.views.push(v)
	c.jobs.push(func(ctx context.Context) {
		pe, err := c.backend.ExplainPod(ctx, pod)
		c.posted.push(func() {
			v.setSource(func(w *model.World) render.Text {
				if err != nil {
					return errorText(fmt.Errorf("explain pod %s: %w", key, err))
				}
				p := pod
				if now := w.Pod(key); now != nil {
					p = now
				}
				return render.ExplainPod(p, pe, w.Now)
			})
			c.replan()
		})
	})
}

// explainNode asks the backend why a node is or is not disrupted; the countdown and the
// blocker follow the live journal.
func (c *Console) explainNode(name string) {
	v := newTextView("explain "+name, "Explain node "+name, c.pal, nil)
	c.views.push(v)
	c.jobs.push(func(ctx context.Context) {
		x, err := c.backend.ExplainNode(ctx, name)
		c.posted.push(func() {
			v.setSource(func(w *model.World) render.Text {
				if err != nil {
					return errorText(fmt.Errorf("explain node %s: %w", name, err))
				}
				return explainNodeText(w, name, x)
			})
			c.replan()
		})
	})
}

// explainNodeText says why a node is or is not being disrupted, what consolidating it would save,
// and what its NodePool's budgets allow now.
func explainNodeText(w *model.World, name string, x NodeExplanation) render.Text {
	n := w.Node(name)
	if n == nil {
		return goneText("node " + name)
	}
	var t render.Writer
	t.Add("Node ", render.ToneHeading).Add(name, render.ToneHeading).End()
	price := "price unknown"
	if n.Priced {
		price = render.Dollars(n.PerHour) + "/h (" + render.Monthly(n.PerHour) + "/month)"
	}
	t.Field(2, "instance", fmt.Sprintf("%s %s in %s, NodePool %s, %s", n.InstanceType, n.CapacityType, n.Zone, n.NodePool, price))
	t.Field(2, "pods", fmt.Sprintf("%d; cpu %s of %s requested, memory %s of %s", n.Pods,
		render.CPU(n.CPUReq), render.CPU(n.CPUAlloc), render.Mem(n.MemReq), render.Mem(n.MemAlloc)))
	t.Blank()
	t.Heading("Disruption now")
	reason, message, until := n.Blocked, n.BlockedMessage, n.BlockedUntil
	if reason == "" && x.Blocked != nil {
		reason, message, until = x.Blocked.Reason, x.Blocked.Message, x.Blocked.Until
	}
	switch status, _ := render.NodeStatus(n.State); {
	case n.State.MarkedForDeletion:
		t.Para(2, "it is being disrupted: a disruption command or a deletion has taken it ("+status+")", render.ToneKill)
	case reason != "":
		t.Add("  blocked", render.ToneKey).Add(": ", render.ToneColon).Add(string(reason), render.ToneBlocked).End()
		t.Para(4, strings.TrimPrefix(message, name+": "), render.ToneNormal)
		if !until.IsZero() {
			t.Para(4, blockedUntil(reason, render.Countdown(w.Now, until)), render.ToneWarning)
		}
	default:
		t.Para(2, "nothing blocks it: the next disruption pass may take it if that saves money", render.ToneAdded)
	}
	t.Blank()
	t.Heading("If it were consolidated")
	switch cons := x.Consolidation; {
	case cons == nil:
		t.Para(2, "not simulated", render.ToneCompleted)
	case cons.Decision == "":
		t.Para(2, "it would stay: "+cons.Reason, render.ToneBlocked)
	default:
		what := cons.Decision
		if len(cons.Replacements) > 0 {
			what += " with " + strings.Join(cons.Replacements, ", ")
		}
		saving := cons.PriceBefore - cons.PriceAfter
		t.Add("  "+what, render.ToneConsolidation).Add(fmt.Sprintf(": %s/h → %s/h, saves ", render.Dollars(cons.PriceBefore), render.Dollars(cons.PriceAfter)), render.ToneNormal).
			Add(render.Dollars(saving)+"/h ("+render.Monthly(saving)+"/month)", render.ToneCost).End()
	}
	if cons := x.Consolidation; cons != nil && cons.Order != "" {
		t.Field(2, "order", cons.Order)
	}
	if np := w.Snapshot.NodePool(n.NodePool); np != nil {
		t.Blank()
		t.Heading("Budgets of NodePool " + np.Name + " now")
		for _, a := range w.Budgets(np.Name) {
			t.Para(2, a.String(), allowanceTone(a))
		}
	}
	return t.Text()
}

func blockedUntil(reason journal.Reason, countdown string) string {
	if reason == disruption.BlockedConsolidateAfter {
		return "consolidateAfter passes " + countdown
	}
	return "until " + countdown
}

// explainPool is a NodePool's limits and budgets now.
func explainPool(w *model.World, name string) render.Text {
	p, ok := w.Pool(name)
	if !ok {
		return goneText("NodePool " + name)
	}
	return render.ExplainNodePool(p, w.Budgets(p.Pool.Name), w.Now)
}

func allowanceTone(a disruption.Allowance) render.Tone {
	if a.Budget != "" && a.Allowed == 0 {
		return render.ToneBlocked
	}
	return render.ToneNormal
}
