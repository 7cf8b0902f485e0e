package aws

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// DefaultUnavailableFor is how long an offering stays unavailable after EC2 reported no
// capacity for it or reclaimed a spot instance of it.
const DefaultUnavailableFor = 3 * time.Minute

// offering names one way to buy an instance type: capacity type, instance type and zone.
type offering struct {
	capacityType, instanceType, zone string
}

// String is the "capacity-type:instance-type:zone" form of InsufficientCapacityError.Offerings.
func (o offering) String() string { return o.capacityType + ":" + o.instanceType + ":" + o.zone }

// unavailableOfferings remembers the offerings EC2 recently had no capacity for. Each entry
// expires after ttl; the generation changes whenever the set changes, so that cached instance
// types are rebuilt with the right Available flags.
type unavailableOfferings struct {
	clock      clock.PassiveClock
	ttl        time.Duration
	mu         sync.Mutex
	until      map[offering]time.Time
	generation uint64
}

func newUnavailableOfferings(c clock.PassiveClock, ttl time.Duration) *unavailableOfferings {
	return &unavailableOfferings{clock: c, ttl: ttl, until: map[offering]time.Time{}}
}

// mark makes o unavailable for ttl from now.
func (u *unavailableOfferings) mark(o offering) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.until[o] = u.clock.Now().Add(u.ttl)
	u.generation++
}

// snapshot returns the offerings unavailable now and the generation of that set, dropping the
// entries that expired.
func (u *unavailableOfferings) snapshot() (map[offering]bool, uint64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.clock.Now()
	out := make(map[offering]bool, len(u.until))
	for o, until := range u.until {
		if !now.Before(until) {
			delete(u.until, o)
			u.generation++
			continue
		}
		out[o] = true
	}
	return out, u.generation
}
