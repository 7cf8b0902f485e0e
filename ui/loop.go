package ui

import (
	"context"
	"time"

	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/model"
)

// wake signals a coalescing channel without blocking.
func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// replan publishes the plans of the view on top (the only one drawn) and wakes the builder.
// UI goroutine only.
func (c *Console) replan() {
	plans := c.views.top().plans()
	c.mu.Lock()
	c.plans = plans
	c.mu.Unlock()
	c.replanned = true
	wake(c.wakeBuild)
}

// build makes the next frame off the UI goroutine: a new World when refresh (else the last
// one, for a changed query), then every plan on it.
func (c *Console) build(refresh bool) {
	c.buildMu.Lock()
	defer c.buildMu.Unlock()
	if refresh || c.built == nil {
		in := c.input()
		if c.built != nil {
			in.Trend = c.built.Trend
		}
		c.built = model.New(in)
	}
	c.mu.Lock()
	plans := c.plans
	c.mu.Unlock()
	f := &frame{world: c.built, info: c.backend.Info(), applies: make([]func(), 0, len(plans))}
	if c.demo != nil {
		f.story = c.demo.Story()
	}
	for _, p := range plans {
		f.applies = append(f.applies, p(c.built))
	}
	c.mu.Lock()
	c.frame = f
	c.mu.Unlock()
}

// input gathers what a World is built from. The caller holds buildMu (the cache is the
// builder's).
func (c *Console) input() model.Input {
	in := model.Input{Snapshot: c.backend.Snapshot(), Journal: c.backend.Journal(), Budgets: c.backend.Budgets, Price: c.backend.Price,
		Provisioning: c.backend.Provisioning(), Skins: c.skins, Now: c.opts.Clock.Now(), Cache: c.cache, Usage: c.backend.Usage()}
	c.mu.Lock()
	in.Skin, in.RightSizing = c.skinName, c.rightSizing
	in.Contexts, in.Context = c.contexts.names, c.contexts.current
	c.mu.Unlock()
	return in
}

// applyPending runs, on the UI goroutine, the latest frame's changes and the posted functions.
func (c *Console) applyPending() {
	c.mu.Lock()
	f := c.frame
	c.frame = nil
	c.mu.Unlock()
	posted := c.posted.takeAll()
	if f != nil {
		c.world, c.info, c.story = f.world, f.info, f.story
		for _, apply := range f.applies {
			apply()
		}
	}
	for _, p := range posted {
		p()
	}
	if p := c.views.top().active(); p != nil && p.spec.Kind == model.KindRightSizing {
		c.refreshRightSizing(false)
	}
}

// buildLoop rebuilds the World when the cluster or the journal change (at most once per
// FrameInterval), at least every RefreshInterval, and replans at once when the operator
// changes what is shown.
func (c *Console) buildLoop(ctx context.Context) {
	changes := c.backend.Changes()
	journal := c.backend.JournalChanges()
	tick := time.NewTicker(c.opts.RefreshInterval)
	defer tick.Stop()
	dirty, planned := true, false
	var last time.Time
	for {
		if dirty && !planned && !c.waitFrame(ctx, last, c.wakeBuild) {
			return
		}
		if dirty || planned {
			last = time.Now()
			c.build(dirty)
			wake(c.wakeDraw)
			dirty, planned = false, false
		}
		select {
		case <-ctx.Done():
			return
		case <-changes:
			dirty = true
		case <-journal:
			dirty = true
		case <-tick.C:
			dirty = true
		case <-c.wakeWorld:
			dirty = true
		case <-c.wakeBuild:
			planned = true
		}
	}
}

// workLoop runs the queued actions one at a time.
func (c *Console) workLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wakeJobs:
		}
		for job, ok := c.jobs.pop(); ok && ctx.Err() == nil; job, ok = c.jobs.pop() {
			job(ctx)
		}
	}
}

// drawLoop applies the latest frame and draws, at most once per FrameInterval: bursts of
// changes coalesce into one draw.
func (c *Console) drawLoop(ctx context.Context, app *tview.Application) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wakeDraw:
		}
		if !c.waitFrame(ctx, last, nil) {
			return
		}
		last = time.Now()
		app.QueueUpdateDraw(c.applyPending)
	}
}

// waitFrame waits until FrameInterval has passed since last, or until cut fires (nil: never);
// false when ctx ended first.
func (c *Console) waitFrame(ctx context.Context, last time.Time, cut <-chan struct{}) bool {
	wait := c.opts.FrameInterval - time.Since(last)
	if wait <= 0 {
		return true
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-cut:
	case <-timer.C:
	}
	return true
}

// plan is the data work a view needs for its next frame. The UI goroutine makes plans (they
// capture copies of what the view asked for); the builder runs them off the UI goroutine on a
// new World; each returns the change to apply, which the UI goroutine runs before drawing.
type plan func(*model.World) (apply func())
