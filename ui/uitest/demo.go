package uitest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
)

// DemoFake is a Fake that also implements ui.Demo.
type DemoFake struct {
	*Fake
	mu       sync.Mutex
	autoplay bool
	scaled   int
}

// NewDemo generates a cluster and serves it with the demo part, autoplay on.
func NewDemo(cfg Config) *DemoFake { return &DemoFake{Fake: New(cfg), autoplay: true} }

// Deployments implements ui.Demo.
func (d *DemoFake) Deployments() []string { return []string{"default/inflate", "shop/web"} }

// Scale implements ui.Demo: up adds pending pods, down deletes the deployment's newest pods.
func (d *DemoFake) Scale(_ context.Context, deployment string, delta int) error {
	d.called("scale %s %+d", deployment, delta)
	ns, name, ok := strings.Cut(deployment, "/")
	if !ok {
		return fmt.Errorf("deployment %q: want namespace/name", deployment)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for ; delta > 0; delta-- {
		d.scaled++
		p := podFor([2]string{ns, name}, "5c6d7e8f9", fmt.Sprintf("scale%d", d.scaled), "1", "1Gi", d.Clock.Now())
		p.Status.Conditions = d.gen.pendingPod(0).Status.Conditions
		d.Cluster.UpdatePod(p)
	}
	if delta < 0 {
		all := d.Cluster.Snapshot().Pods
		for i := len(all) - 1; i >= 0 && delta < 0; i-- {
			if p := all[i]; p.Namespace == ns && p.Labels["app"] == name {
				d.Cluster.DeletePod(pods.Key(p))
				delta++
			}
		}
	}
	return nil
}

// Interrupt implements ui.Demo: it journals a spot interruption for the node.
func (d *DemoFake) Interrupt(_ context.Context, node string) error {
	d.called("interrupt %s", node)
	d.journal.Record(journal.Entry{Time: d.Clock.Now(), Kind: journal.KindInterruption, Method: "Interruption", Reason: "SpotInterruption",
		Message: "spot interruption for " + node + " (sent by hand)", Nodes: []string{node}, Until: d.Clock.Now().Add(2 * time.Minute)})
	return nil
}

// Autoplay implements ui.Demo.
func (d *DemoFake) Autoplay() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.autoplay
}

// SetAutoplay implements ui.Demo.
func (d *DemoFake) SetAutoplay(on bool) {
	d.called("autoplay %v", on)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.autoplay = on
}

// Story implements ui.Demo.
func (d *DemoFake) Story() string {
	if d.Autoplay() {
		return "act 2 of 4: inflate scaled out to 10 replicas; waiting for nodes"
	}
	return "autoplay off: drive it with + - i"
}
