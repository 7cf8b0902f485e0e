package ui

import "sync"

// inbox is a queue that any goroutine fills and one goroutine drains, signalling wake on every
// push so that the drainer need not poll.
type inbox[T any] struct {
	mu    sync.Mutex
	items []T
	wake  chan struct{}
}

func newInbox[T any](wake chan struct{}) *inbox[T] { return &inbox[T]{wake: wake} }

// push queues x and signals. Safe from any goroutine.
func (b *inbox[T]) push(x T) {
	b.mu.Lock()
	b.items = append(b.items, x)
	b.mu.Unlock()
	wake(b.wake)
}

// pop takes the oldest item, if any.
func (b *inbox[T]) pop() (T, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var x T
	if len(b.items) == 0 {
		return x, false
	}
	x, b.items = b.items[0], b.items[1:]
	return x, true
}

// takeAll takes every queued item, oldest first.
func (b *inbox[T]) takeAll() []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := b.items
	b.items = nil
	return items
}

// empty reports whether nothing is queued.
func (b *inbox[T]) empty() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.items) == 0
}
