package ui

import (
	"context"
	"fmt"
	"slices"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/ui/dialog"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// enter drills down from the selected row: a NodePool to its nodes, a node to its pods, a
// journal entry to the nodes and pods it touched, a pending pod to its explanation, a skin
// to using it, a context to switching to it; other objects open their description.
func (c *Console) enter(p *pane) {
	r := p.selected()
	if r == nil {
		return
	}
	s := selectionOf(r)
	switch {
	case s.pool != nil:
		c.drill(model.Spec{Kind: model.KindNodes, Scope: model.Scope{NodePool: s.pool.Name}}, s.pool.Name, "nodepool "+s.pool.Name)
	case s.node != "":
		c.drill(model.Spec{Kind: model.KindPods, Scope: model.Scope{Node: s.node}}, s.node, "node "+s.node)
	case s.entry != nil && len(s.entry.Nodes)+len(s.entry.Pods) > 0:
		c.drill(model.Spec{Kind: model.KindTouched, Scope: model.Scope{Entry: s.entry.Seq}}, fmt.Sprintf("#%d", s.entry.Seq), fmt.Sprintf("%s #%d", s.entry.Kind, s.entry.Seq))
	case s.pod != nil && pods.IsProvisionable(s.pod):
		c.explain(p)
	case s.skin != "":
		c.useSkin(s.skin)
	case s.context != "":
		c.switchContext(s.context)
	default:
		c.describe(p)
	}
}

func (c *Console) drill(spec model.Spec, scope, crumb string) {
	spec.Query = render.Query{Sort: render.Unsorted()}
	c.views.push(newTableView(spec, scope, crumb, c.pal))
}

// describe opens the selected object's description; it follows the object as it changes.
func (c *Console) describe(p *pane) {
	r := p.selected()
	if r == nil {
		return
	}
	key, ref := r.Key, r.Ref
	c.views.push(newTextView("describe "+key, "Describe "+key, c.pal, func(w *model.World) render.Text {
		switch obj := current(w, key, ref).(type) {
		case *render.Node:
			return render.DescribeNode(obj, w.Now)
		case render.NodePool:
			return render.DescribeNodePool(obj, w.Now)
		case gone:
			return goneText(key)
		default:
			return describeRef(obj, w)
		}
	}))
}

// yaml opens the selected object's YAML.
func (c *Console) yaml(p *pane) {
	r := p.selected()
	if r == nil {
		return
	}
	key, ref := r.Key, r.Ref
	c.views.push(newTextView("yaml "+key, "YAML "+key, c.pal, func(w *model.World) render.Text {
		obj := current(w, key, ref)
		var out any = obj
		switch o := obj.(type) {
		case gone:
			return goneText(key)
		case *render.Node:
			out = o.State.NodeClaim
			if o.State.Node != nil {
				out = o.State.Node
			}
		case render.NodePool:
			out = o.Pool
		case render.NodeClaim:
			out = o.Claim
		}
		t, err := render.YAML(out)
		if err != nil {
			return errorText(err)
		}
		return t
	}))
}

// cordon cordons or uncordons the selected node.
func (c *Console) cordon(p *pane, on bool) {
	s := selectionOf(p.selected())
	if s.node == "" {
		c.flash.warn("select a registered node first")
		return
	}
	verb := map[bool]string{true: "cordoned", false: "uncordoned"}[on]
	c.act(fmt.Sprintf("%s node %s", verb, s.node), func(ctx context.Context) error { return c.backend.Cordon(ctx, s.node, on) })
}

// drain asks, then drains the selected node.
func (c *Console) drain(p *pane) {
	s := selectionOf(p.selected())
	if s.node == "" {
		c.flash.warn("select a registered node first")
		return
	}
	c.confirm("Drain", "Drain node "+s.node+"? It is cordoned and its pods are evicted through the Eviction API (PodDisruptionBudgets apply).", "Drain",
		func() {
			c.act("draining node "+s.node, func(ctx context.Context) error { return c.backend.Drain(ctx, s.node) })
		})
}

// deleteClaim asks, then deletes the selected node's NodeClaim.
func (c *Console) deleteClaim(p *pane) {
	s := selectionOf(p.selected())
	if s.claim == "" {
		c.flash.warn("select a node nodepilot manages (one with a NodeClaim) first")
		return
	}
	c.confirm("Delete", "Delete NodeClaim "+s.claim+"? Its node is drained and its instance terminated.", "Delete",
		func() {
			c.act("deleting nodeclaim "+s.claim, func(ctx context.Context) error { return c.backend.DeleteNodeClaim(ctx, s.claim) })
		})
}

// interrupt sends a spot interruption for the selected spot node (demo).
func (c *Console) interrupt(p *pane) {
	s := selectionOf(p.selected())
	if s.node == "" || !s.spot {
		c.flash.warn("i interrupts spot nodes: select one")
		return
	}
	c.act("spot interruption sent for "+s.node, func(ctx context.Context) error { return c.demo.Interrupt(ctx, s.node) })
}

// scale adds or removes a replica of the selected pod's demo Deployment, else of the first.
func (c *Console) scale(delta int) {
	deps := c.demo.Deployments()
	if len(deps) == 0 {
		c.flash.warn("the demo has no Deployment to scale")
		return
	}
	dep := deps[0]
	if s := selectionOf(selectedOf(c.views.top())); s.pod != nil && slices.Contains(deps, deploymentOf(s.pod)) {
		dep = deploymentOf(s.pod)
	}
	c.act(fmt.Sprintf("scaled %s by %+d", dep, delta), func(ctx context.Context) error { return c.demo.Scale(ctx, dep, delta) })
}

// toggleAutoplay starts or stops the demo's story.
func (c *Console) toggleAutoplay() {
	on := !c.demo.Autoplay()
	c.demo.SetAutoplay(on)
	c.flash.info(map[bool]string{true: "autoplay on: the story plays", false: "autoplay off: drive the demo with + - i"}[on])
	wake(c.wakeBuild)
}

// togglePause pauses or resumes the autoscaler.
func (c *Console) togglePause() {
	if c.info.Paused {
		c.backend.Resume()
		c.info.Paused = false
		c.flash.info("autoscaler resumed")
	} else {
		c.backend.Pause()
		c.info.Paused = true
		c.flash.info("autoscaler paused: it watches and decides nothing until p again")
	}
	c.replan()
}

// useSkin loads a skin by name and swaps it in.
func (c *Console) useSkin(name string) {
	c.jobs.push(func(context.Context) {
		s, err := c.opts.LoadSkin(name)
		c.posted.push(func() {
			if err != nil {
				c.flash.err("skin " + name + ": " + err.Error())
				return
			}
			c.setPalette(s)
			c.mu.Lock()
			c.skinName = name
			c.mu.Unlock()
			c.flash.info("skin " + name)
			c.replan()
		})
	})
}

// act runs a backend call on the worker and flashes how it went.
func (c *Console) act(done string, call func(context.Context) error) {
	c.flash.info(done + "…")
	c.jobs.push(func(ctx context.Context) {
		err := call(ctx)
		c.posted.push(func() {
			if err != nil {
				c.flash.err(err.Error())
				return
			}
			c.flash.info(done)
		})
	})
}

// confirm opens a confirmation dialog; yes runs on OK.
func (c *Console) confirm(title, message, ok string, yes func()) {
	c.dialog = dialog.New(title, message, ok, func(confirmed bool) {
		c.dialog = nil
		if confirmed {
			yes()
		} else {
			c.flash.info(title + " cancelled")
		}
	})
}
