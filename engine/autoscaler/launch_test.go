package autoscaler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// gatedCloud holds each launch until limit launches are under way at once (or a deadlock guard
// fires), and records the most that ever were.
type gatedCloud struct {
	*enginetest.Cloud
	limit int

	mu       sync.Mutex
	inflight int
	most     int
	reached  chan struct{} // closed when limit launches were under way together
}

// Create implements cloudprovider.CloudProvider.
func (g *gatedCloud) Create(ctx context.Context, nc *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	g.mu.Lock()
	g.inflight++
	g.most = max(g.most, g.inflight)
	if g.inflight == g.limit {
		g.open()
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inflight--
		g.mu.Unlock()
	}()
	select {
	case <-g.reached:
	case <-time.After(10 * time.Second): // a deadlock guard, not a measurement: later launches pass
		g.mu.Lock()
		g.open()
		g.mu.Unlock()
		return nil, fmt.Errorf("launch of %s waited 10 s for %d launches to run together", nc.Name, g.limit)
	}
	return g.Cloud.Create(ctx, nc)
}

// open lets every launch through from now on; the caller holds mu.
func (g *gatedCloud) open() {
	select {
	case <-g.reached:
	default:
		close(g.reached)
	}
}

// TestLaunchesRunConcurrently: NodeClaims created together launch together, never more at once
// than Options.Lifecycle.LaunchConcurrency, and every one gets its own machine.
func TestLaunchesRunConcurrently(t *testing.T) {
	for _, tc := range []struct {
		name           string
		claims, limit  int
		wantMostAtOnce int
	}{
		{"more claims than the limit", 10, 4, 4},
		{"the limit is one: one after another", 3, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.stop()
			cloud := &gatedCloud{Cloud: h.Cloud, limit: tc.limit, reached: make(chan struct{})}
			o := autoscaler.DefaultOptions()
			o.Lifecycle.LaunchConcurrency = tc.limit
			h.autoscaler = autoscaler.New(h.Cluster, executor.New(executor.Live, h.API, cloud, h.journal, h.Clock), cloud, h.Cloud, h.journal, h.Clock, o)
			h.stop = h.AddReconciler(h.pass(h.autoscaler))

			h.NodePool("default")
			h.Deployment("wide", tc.claims, enginetest.Resources("500m", "256Mi"), enginetest.OnePerNode())
			h.Advance(time.Minute, time.Second)

			if cloud.most != tc.wantMostAtOnce {
				t.Errorf("at most %d launches at once, want %d", cloud.most, tc.wantMostAtOnce)
			}
			if n := len(h.Cloud.Launches()); n != tc.claims {
				t.Errorf("%d machines launched, want %d (one per NodeClaim)", n, tc.claims)
			}
			for _, e := range h.entries(journal.KindLaunch) {
				if e.Reason == "Error" {
					t.Errorf("journaled: %s", e.Message)
				}
			}
			if err := h.CheckOneInstancePerNodeClaim(); err != nil {
				t.Error(err)
			}
			if err := h.CheckPodsRunning(); err != nil {
				t.Error(err)
			}
		})
	}
}
