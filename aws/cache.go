package aws

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// ttlCache keeps values for a while, by key. The resolvers of subnets, security groups, AMIs and
// instance profiles use it so that a launch costs no lookups while their answers are fresh.
type ttlCache[V any] struct {
	clock clock.PassiveClock
	ttl   time.Duration
	mu    sync.Mutex
	items map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	value V
	at    time.Time
}

func newTTLCache[V any](c clock.PassiveClock, ttl time.Duration) *ttlCache[V] {
	return &ttlCache[V]{clock: c, ttl: ttl, items: map[string]ttlEntry[V]{}}
}

// get returns the value under key if it was stored less than ttl ago.
func (c *ttlCache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok || c.clock.Since(e.at) >= c.ttl {
		var zero V
		return zero, false
	}
	return e.value, true
}

// set stores value under key, and drops the entries that have expired.
func (c *ttlCache[V]) set(key string, value V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	for k, e := range c.items {
		if now.Sub(e.at) >= c.ttl {
			delete(c.items, k)
		}
	}
	c.items[key] = ttlEntry[V]{value: value, at: now}
}

// forget drops key, so that the next get misses.
func (c *ttlCache[V]) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.items, key)
}
