package state

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/pods"
)

// PodScheduling is what the provisioner has done about a pod, as Karpenter's cluster state keeps
// it for its pod metrics: when a pass first found it provisionable (Acked), when a solve first
// decided about it (Decided), and since when the solves place it (Placed; zero while the latest
// solve could not).
type PodScheduling struct {
	Acked, Decided, Placed time.Time
}

// AckPods notes the provisionable pods a pass found, keeping the first time each was found.
func (c *Cluster) AckPods(ps []*corev1.Pod, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range ps {
		s := c.scheduling[pods.Key(p)]
		if s.Acked.IsZero() {
			s.Acked = now
			c.scheduling[pods.Key(p)] = s
		}
	}
}

// DecidePods notes a solve's outcome: the pods it placed on a node or a NodeClaim, and those it
// could not place. It returns, for each pod decided about for the first time, how long it waited
// since it was acknowledged.
func (c *Cluster) DecidePods(placed, failed []*corev1.Pod, now time.Time) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var waited []time.Duration
	note := func(p *corev1.Pod, ok bool) {
		key := pods.Key(p)
		s, known := c.scheduling[key]
		if !known {
			return // not acknowledged: deleted since, or a pod of a disrupted node
		}
		if s.Decided.IsZero() {
			s.Decided = now
			waited = append(waited, now.Sub(s.Acked))
		}
		switch {
		case !ok:
			s.Placed = time.Time{}
		case s.Placed.IsZero():
			s.Placed = now
		}
		c.scheduling[key] = s
	}
	for _, p := range placed {
		note(p, true)
	}
	for _, p := range failed {
		note(p, false)
	}
	return waited
}

// PodSchedulings returns what the provisioner has done about each pod it acknowledged and that
// still exists.
func (c *Cluster) PodSchedulings() map[types.NamespacedName]PodScheduling {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make(map[types.NamespacedName]PodScheduling, len(c.scheduling))
	for k, v := range c.scheduling {
		out[k] = v
	}
	return out
}
