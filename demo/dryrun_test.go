package demo

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodepilot/nodepilot/aws"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
)

// writes tallies the requests other than reads that nodepilot's clients send to the API server.
type writes struct {
	mu   sync.Mutex
	sent []string
}

// wrap counts through one client's transport; every client built from the config gets its own.
func (w *writes) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.mu.Lock()
			w.sent = append(w.sent, req.Method+" "+req.URL.Path)
			w.mu.Unlock()
		}
		return next.RoundTrip(req)
	})
}

func (w *writes) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.sent...)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestDryRunWritesNothing runs the demo's seed workloads with a dry-run autoscaler on the real
// control plane and the emulator: the loops decide (NodeClaims to create, an instance profile,
// status writes) and journal each as "would", while neither AWS (EC2, IAM, SQS, SSM) nor the API
// server receives a single write from nodepilot.
func TestDryRunWritesNothing(t *testing.T) {
	sent := &writes{}
	opts := DefaultOptions()
	opts.Dir = t.TempDir()
	opts.Autoscaler.DryRun = true
	opts.WrapTransport = sent.wrap
	ctx, env := runDemoWith(t, 4*time.Minute, opts)

	would := func(kind executor.Kind, after uint64) []journal.Entry {
		var out []journal.Entry
		for _, e := range env.App.Journal.Entries(after) {
			if e.Kind == journal.KindAction && e.Reason == journal.Reason(kind) {
				out = append(out, e)
			}
		}
		return out
	}
	waitFor(t, ctx, env, 2*time.Minute, "would-create nodeclaims and a would-create instance profile", func(*state.Snapshot) error {
		for _, k := range []executor.Kind{executor.CreateNodeClaim, executor.CreateInstanceProfile, executor.UpdateNodeClassStatus} {
			if len(would(k, 0)) == 0 {
				return fmt.Errorf("no %s journaled yet", k)
			}
		}
		return nil
	})
	// The story still plays in a dry run: its writes are the demo's, not nodepilot's. The dry
	// run decides again for the new pod: more passes of every loop, each a chance to write.
	var seq uint64
	if es := env.App.Journal.Entries(0); len(es) > 0 {
		seq = es[len(es)-1].Seq
	}
	if err := env.Scale(ctx, env.Deployments[0], 1); err != nil {
		t.Errorf("scaling %s in a dry run: %v", env.Deployments[0], err)
	}
	waitFor(t, ctx, env, 2*time.Minute, "a would-create nodeclaim for the scaled deployment", func(*state.Snapshot) error {
		if len(would(executor.CreateNodeClaim, seq)) == 0 {
			return fmt.Errorf("no nodeclaim would be created since %s was scaled", env.Deployments[0])
		}
		return nil
	})

	for _, e := range would(executor.CreateNodeClaim, 0) {
		if !e.DryRun || !strings.HasPrefix(e.Message, "would create nodeclaim for ") {
			t.Errorf("create entry %+v: want a dry-run 'would create nodeclaim for ...'", e)
		}
	}
	if s := env.App.Cluster.Snapshot(); len(s.NodeClaims) != 0 {
		t.Errorf("%d nodeclaims exist after a dry run", len(s.NodeClaims))
	}
	for op, n := range env.Emulator.CallCounts() {
		if !aws.IsRead(op) {
			t.Errorf("the emulator received %d %s call(s) in a dry run", n, op)
		}
	}
	if w := sent.list(); len(w) != 0 {
		t.Errorf("the API server received %d write(s) from nodepilot in a dry run: %v", len(w), w)
	}
	t.Logf("dry run: %d would-create nodeclaim entries, %d AWS operations called, all reads; 0 writes to the API server",
		len(would(executor.CreateNodeClaim, 0)), len(env.Emulator.CallCounts()))
}
