package enginetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrInjected is the error FailNext injects when it is given none.
var ErrInjected = errors.New("enginetest: injected failure")

// faults injects failures into named operations and reports each call to a hook, so that a
// test can make a call fail or stop the engine right after it. The API and the Cloud embed it.
type faults struct {
	// ops are the operation names that may fail; FailNext panics on any other name.
	ops []string

	mu   sync.Mutex
	fail map[string][]error
	hook func(op string)
}

func newFaults(ops ...string) faults {
	return faults{ops: ops, fail: map[string][]error{}}
}

// FailNext makes the next n calls of op fail with err (ErrInjected when err is nil) without
// any effect. Operations are named after the methods (for the API, the state.APIWriter methods
// such as "CreateNodeClaim" or "Evict"; for the Cloud, "Create", "Delete", "Get", "List",
// "InstanceTypes" and "IsDrifted"). An unknown name panics: it is a mistake in the test.
func (f *faults) FailNext(op string, n int, err error) {
	if !slices.Contains(f.ops, op) {
		panic(fmt.Sprintf("enginetest: FailNext: unknown operation %q (want one of %v)", op, f.ops))
	}
	if err == nil {
		err = ErrInjected
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		f.fail[op] = append(f.fail[op], err)
	}
}

// OnCall sets a hook called after every call of an operation returns, whatever its outcome,
// with the operation's name; nil removes it. A crash test cancels the engine's context from it
// right after the operation it stops at. The hook runs in the caller's goroutine, without any
// lock held, so it may call back into the API or the Cloud.
func (f *faults) OnCall(hook func(op string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hook = hook
}

// begin starts a call of op: it fails when ctx has ended or a failure was injected.
func (f *faults) begin(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if q := f.fail[op]; len(q) > 0 {
		f.fail[op] = q[1:]
		return q[0]
	}
	return nil
}

// end reports the end of a call of op to the hook.
func (f *faults) end(op string) {
	f.mu.Lock()
	hook := f.hook
	f.mu.Unlock()
	if hook != nil {
		hook(op)
	}
}
