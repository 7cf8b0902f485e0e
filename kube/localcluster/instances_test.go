package localcluster

import (
	"context"
	"slices"
	"sync"
)

// fakeInstances is an Instances source a test sets by hand.
type fakeInstances struct {
	mu      sync.Mutex
	running []Instance
	err     error
}

func (f *fakeInstances) Running(context.Context) ([]Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.running), f.err
}

func (f *fakeInstances) set(running ...Instance) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running = running
}

func (f *fakeInstances) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}
