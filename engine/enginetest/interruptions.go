package enginetest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// SpotInterruptionWarning is how long before reclaiming a spot instance the cloud warns.
const SpotInterruptionWarning = 2 * time.Minute

// Delivery is one delivery of an interruption to a handler, and what the handler answered.
type Delivery struct {
	Interruption cloudprovider.Interruption
	// Attempt counts the deliveries of this interruption, from 1.
	Attempt int
	Err     error
}

// queuedInterruption waits in the queue until notBefore.
type queuedInterruption struct {
	event     cloudprovider.Interruption
	notBefore time.Time
	attempts  int
}

// Interrupt queues an interruption of the instance with this provider ID, as EventBridge
// would, and does what the cloud does with it: a SpotInterruption is due in
// SpotInterruptionWarning (the Cloud's Step then terminates the instance and queues a
// StateChange) and marks the instance's offering unavailable for UnavailableFor; a StateChange
// terminates the instance now; a ScheduledChange, a CapacityReservationInterruption and a
// RebalanceRecommendation change nothing by themselves. Every kind but RebalanceRecommendation
// asks for a drain. An unknown provider ID is an error.
func (c *Cloud) Interrupt(providerID string, kind cloudprovider.InterruptionKind) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	inst := c.byProviderID(providerID)
	if inst == nil {
		return fmt.Errorf("interrupting %q: no such instance", providerID)
	}
	now := c.clock.Now()
	ev := cloudprovider.Interruption{Kind: kind, InstanceID: inst.ID, ProviderID: providerID, At: now,
		Drain: kind != cloudprovider.RebalanceRecommendation}
	switch kind {
	case cloudprovider.SpotInterruption:
		ev.Deadline = now.Add(SpotInterruptionWarning)
		ev.Detail = "spot instance interruption warning: terminate"
		if inst.Running() {
			inst.ReclaimAt = ev.Deadline
		}
		c.markUnavailable(OfferingKey{InstanceType: inst.InstanceType, Zone: inst.Zone, CapacityType: inst.CapacityType}, now)
	case cloudprovider.StateChange:
		ev.Detail = "terminated"
		if inst.Running() {
			c.terminate(inst, now)
		}
	case cloudprovider.ScheduledChange:
		ev.Detail = "instance retirement scheduled"
	case cloudprovider.CapacityReservationInterruption:
		ev.Detail = "capacity reservation reclaimed"
	case cloudprovider.RebalanceRecommendation:
		ev.Detail = "rebalance recommendation"
	}
	c.enqueue(ev)
	return nil
}

// enqueue queues an interruption for delivery now and wakes Run; the caller holds the lock.
func (c *Cloud) enqueue(ev cloudprovider.Interruption) {
	c.version++
	c.queue = append(c.queue, queuedInterruption{event: ev, notBefore: ev.At})
	select {
	case c.arrived <- struct{}{}:
	default:
	}
}

// Poll delivers, one at a time and in order, every interruption due now, once, and returns
// how many it delivered. One whose handle fails goes to the back of the queue and is due again
// RedeliveryDelay later (with a zero delay, Run retries a failing handler without pause).
// Use Poll or Run, not both at once.
func (c *Cloud) Poll(ctx context.Context, handle func(context.Context, cloudprovider.Interruption) error) int {
	c.mu.Lock()
	due := 0
	for _, q := range c.queue {
		if !q.notBefore.After(c.clock.Now()) {
			due++
		}
	}
	c.mu.Unlock()
	delivered := 0
	for range due {
		if ctx.Err() != nil {
			break
		}
		c.mu.Lock()
		now := c.clock.Now()
		i := slices.IndexFunc(c.queue, func(q queuedInterruption) bool { return !q.notBefore.After(now) })
		if i < 0 {
			c.mu.Unlock()
			break
		}
		q := c.queue[i]
		c.queue = slices.Delete(c.queue, i, i+1)
		c.mu.Unlock()

		q.attempts++
		err := handle(ctx, q.event)
		delivered++

		c.mu.Lock()
		c.delivered = append(c.delivered, Delivery{Interruption: q.event, Attempt: q.attempts, Err: err})
		if err != nil {
			q.notBefore = c.clock.Now().Add(c.RedeliveryDelay)
			c.queue = append(c.queue, q)
		}
		c.mu.Unlock()
	}
	return delivered
}

// Run delivers interruptions as they come due, one at a time, until ctx ends, and returns
// ctx's error. It waits on the Cloud's clock, so with a fake clock redeliveries happen as the
// test steps it.
func (c *Cloud) Run(ctx context.Context, handle func(context.Context, cloudprovider.Interruption) error) error {
	for {
		c.Poll(ctx, handle)
		if err := ctx.Err(); err != nil {
			return err
		}
		var timer clock.Timer
		var wake <-chan time.Time
		if wait, ok := c.nextDue(); ok {
			if wait == 0 {
				continue // due already: it came while Poll ran
			}
			timer = c.clock.NewTimer(wait)
			wake = timer.C()
		}
		select {
		case <-ctx.Done():
		case <-c.arrived:
		case <-wake:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// nextDue says how long until the earliest queued interruption is due; ok is false when the
// queue is empty.
func (c *Cloud) nextDue() (wait time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		return 0, false
	}
	earliest := c.queue[0].notBefore
	for _, q := range c.queue[1:] {
		if q.notBefore.Before(earliest) {
			earliest = q.notBefore
		}
	}
	return max(0, earliest.Sub(c.clock.Now())), true
}

// Deliveries returns every delivery so far, oldest first.
func (c *Cloud) Deliveries() []Delivery {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.delivered)
}

// Pending counts the interruptions not yet handled successfully.
func (c *Cloud) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}
