package aws

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodepilot/nodepilot/engine/journal"
)

// maxTerminateBatch is the most instance ids one TerminateInstances call takes.
const maxTerminateBatch = 1000

// terminated is what TerminateInstances said about one instance.
type terminated struct {
	// previous is the state before the call; "terminated" means it was gone already.
	previous string
	// notFound is true when EC2 does not know the instance.
	notFound bool
}

// gone reports whether the instance was gone before the call.
func (t terminated) gone() bool {
	return t.notFound || t.previous == string(ec2types.InstanceStateNameTerminated)
}

// terminator batches the TerminateInstances calls of concurrent deletions: the first caller
// waits for the batch window, collecting the ids of the callers that arrive meanwhile, then makes
// one call for all of them. No goroutine is started: the first caller does the work.
type terminator struct {
	ec2     EC2API
	window  time.Duration
	measure func(journal.Measurement)
	mu      sync.Mutex
	open    *terminateBatch
}

type terminateBatch struct {
	ids     []string
	done    chan struct{}
	results map[string]terminated
	err     error
}

func newTerminator(api EC2API, window time.Duration, measure func(journal.Measurement)) *terminator {
	return &terminator{ec2: api, window: window, measure: measure}
}

// terminate terminates one instance, in a batch with any others asked for within the window.
func (t *terminator) terminate(ctx context.Context, id string) (terminated, error) {
	t.mu.Lock()
	b := t.open
	leader := b == nil
	if leader {
		b = &terminateBatch{done: make(chan struct{})}
		t.open = b
	}
	b.ids = append(b.ids, id)
	if len(b.ids) >= maxTerminateBatch {
		t.open = nil // full: later callers start the next batch
	}
	t.mu.Unlock()

	if leader {
		opened := time.Now()
		timer := time.NewTimer(t.window)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		}
		t.mu.Lock()
		if t.open == b {
			t.open = nil
		}
		ids := slices.Clone(b.ids)
		t.mu.Unlock()
		// Karpenter's name for its batcher of the same calls.
		t.measure(journal.Measurement{Measure: journal.MeasureBatchSize, Batcher: "terminate_instances", Value: float64(len(ids))})
		t.measure(journal.Measurement{Measure: journal.MeasureBatchTime, Batcher: "terminate_instances", Value: time.Since(opened).Seconds()})
		// The batch holds other callers' ids: it runs even when the leader's context ended.
		b.results, b.err = terminateInstances(context.WithoutCancel(ctx), t.ec2, ids)
		close(b.done)
	} else {
		select {
		case <-b.done:
		case <-ctx.Done():
			return terminated{}, fmt.Errorf("terminating %s: %w", id, ctx.Err())
		}
	}
	if b.err != nil {
		return terminated{}, b.err
	}
	return b.results[id], nil
}

// terminateInstances terminates ids in calls of at most maxTerminateBatch. When EC2 rejects a
// call because an id does not exist, the ids of that call are retried one by one, so that one
// unknown id does not block the others.
func terminateInstances(ctx context.Context, api EC2API, ids []string) (map[string]terminated, error) {
	out := make(map[string]terminated, len(ids))
	for chunk := range slices.Chunk(ids, maxTerminateBatch) {
		res, err := api.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: slices.Compact(slices.Sorted(slices.Values(chunk)))})
		if err == nil {
			readTerminated(res, out)
			continue
		}
		if !isInstanceNotFound(err) {
			return nil, fmt.Errorf("ec2 TerminateInstances %v: %w", chunk, err)
		}
		for _, id := range chunk {
			res, err := api.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
			switch {
			case err == nil:
				readTerminated(res, out)
			case isInstanceNotFound(err):
				out[id] = terminated{notFound: true}
			default:
				return nil, fmt.Errorf("ec2 TerminateInstances %s: %w", id, err)
			}
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = terminated{notFound: true}
		}
	}
	return out, nil
}

func readTerminated(res *ec2.TerminateInstancesOutput, out map[string]terminated) {
	for _, change := range res.TerminatingInstances {
		t := terminated{}
		if change.PreviousState != nil {
			t.previous = string(change.PreviousState.Name)
		}
		out[sdkaws.ToString(change.InstanceId)] = t
	}
}

// isInstanceNotFound reports whether EC2 said an instance id does not exist.
func isInstanceNotFound(err error) bool {
	switch errorCode(err) {
	case "InvalidInstanceID.NotFound", "InvalidInstanceID.Malformed":
		return true
	}
	return false
}
