package provisioning

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// Batcher collects triggers into batches, as Karpenter does: a batch closes once no trigger came
// for the idle window, or the max window passed since the first trigger, whichever is first.
type Batcher struct {
	clock       clock.Clock
	idle, limit time.Duration
	trigger     chan struct{}
}

// NewBatcher returns a batcher with the given idle and max windows.
func NewBatcher(c clock.Clock, idle, max time.Duration) *Batcher {
	return &Batcher{clock: c, idle: idle, limit: max, trigger: make(chan struct{}, 1)}
}

// Trigger opens a batch, or extends the open one by the idle window.
func (b *Batcher) Trigger() {
	select {
	case b.trigger <- struct{}{}:
	default:
	}
}

// Wait blocks until a batch opens and then closes; it returns false when ctx ends first.
func (b *Batcher) Wait(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-b.trigger:
	}
	limit := b.clock.NewTimer(b.limit)
	defer limit.Stop()
	idle := b.clock.NewTimer(b.idle)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-b.trigger:
			if !idle.Stop() {
				select {
				case <-idle.C():
				default:
				}
			}
			idle.Reset(b.idle)
		case <-idle.C():
			return true
		case <-limit.C():
			return true
		}
	}
}
