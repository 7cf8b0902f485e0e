package ui

import (
	"context"
	"time"

	"github.com/nodepilot/nodepilot/ui/model"
)

// rightSizingEvery is how old a right-sizing may grow while :rightsizing is shown: each one
// plans the fleet from nothing at least twice, so it is not redone on every frame. A failed one
// (no usage figures yet, say) is tried again after rightSizingRetry.
const (
	rightSizingEvery = time.Minute
	rightSizingRetry = 10 * time.Second
)

// openRightSizing opens :rightsizing and asks for a right-sizing now.
func (c *Console) openRightSizing() {
	c.openKind(model.KindRightSizing)
	c.refreshRightSizing(true)
}

// refreshRightSizing asks the backend for a right-sizing off the UI goroutine when forced or
// when the last is older than rightSizingEvery (rightSizingRetry if it failed), unless one is
// being computed. The table keeps the last one meanwhile. UI goroutine.
func (c *Console) refreshRightSizing(force bool) {
	c.mu.Lock()
	last := c.rightSizing
	every := rightSizingEvery
	if last != nil && last.Err != nil {
		every = rightSizingRetry
	}
	if last != nil && (last.Busy || !force && c.opts.Clock.Since(last.At) < every) {
		c.mu.Unlock()
		return
	}
	next := &model.RightSizing{Busy: true}
	if last != nil {
		next.Report, next.Err, next.At = last.Report, last.Err, last.At
	}
	c.rightSizing = next
	c.mu.Unlock()
	c.jobs.push(func(ctx context.Context) {
		r, err := c.backend.RightSizing(ctx)
		c.mu.Lock()
		c.rightSizing = &model.RightSizing{Report: r, Err: err, At: c.opts.Clock.Now()}
		c.mu.Unlock()
		wake(c.wakeWorld)
	})
	wake(c.wakeWorld)
}
