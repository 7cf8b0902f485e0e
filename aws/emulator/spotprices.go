package emulator

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"time"

	"github.com/nodepilot/nodepilot/aws/catalog"
)

// spotPrices moves each type and zone's spot price around the catalog's synthetic base as a
// mean-reverting random walk: at step k the offset from the base is sum over i of
// 0.8^i x 6% x noise(k-i), with noise uniform in [-1, 1] and hashed from the seed, the type,
// the zone and the step. Each price is a pure function of (seed, type, zone, step), so it does
// not depend on who asked when; 32 terms keep it within 0.1% of the untruncated walk. Prices
// are synthetic and are never shown without saying so.
type spotPrices struct {
	seed     int64
	interval time.Duration
	// held prices every step as step 0; timestamps still follow the clock.
	held  bool
	cache map[priceKey]cachedPrice
}

type priceKey struct{ instanceType, zone string }

type cachedPrice struct {
	step  int64
	price float64
}

const (
	walkTerms = 32
	walkDecay = 0.8
	walkScale = 0.06
)

func newSpotPrices(seed int64, interval time.Duration, held bool) *spotPrices {
	return &spotPrices{seed: seed, interval: interval, held: held, cache: map[priceKey]cachedPrice{}}
}

// step is the index of the price period that contains t.
func (p *spotPrices) step(t time.Time) int64 {
	return int64(math.Floor(float64(t.UnixNano()) / float64(p.interval)))
}

// stepStart is when step k began.
func (p *spotPrices) stepStart(k int64) time.Time {
	return time.Unix(0, 0).Add(time.Duration(k) * p.interval).UTC()
}

// price is the spot price of t in z during step k.
func (p *spotPrices) price(t *instanceType, z zone, k int64) float64 {
	if p.held {
		k = 0
	}
	key := priceKey{t.Name, z.Name}
	if c, ok := p.cache[key]; ok && c.step == k {
		return c.price
	}
	base := catalog.SyntheticSpotPrice(t.Name, z.catalogName, t.OnDemandPrice)
	h := fnv.New64a()
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(p.seed))
	h.Write(seed[:])
	h.Write([]byte(t.Name))
	h.Write([]byte{0})
	h.Write([]byte(z.Name))
	kh := h.Sum64()
	offset, weight := 0.0, 1.0
	for i := range int64(walkTerms) {
		offset += weight * walkScale * noise(kh, k-i)
		weight *= walkDecay
	}
	v := base * (1 + offset)
	v = math.Max(v, base*0.5)
	v = math.Min(v, t.OnDemandPrice*0.95)
	v = math.Max(math.Round(v*1e6)/1e6, 0.000001)
	p.cache[key] = cachedPrice{step: k, price: v}
	return v
}

// noise is uniform in [-1, 1], a hash of the key and the step (splitmix64).
func noise(key uint64, step int64) float64 {
	z := key + uint64(step)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/float64(1<<53)*2 - 1
}

// SpotPrice returns the current synthetic spot price of an instance type in a zone, as
// DescribeSpotPriceHistory reports it now; ok is false if the type is not offered there.
func (e *Emulator) SpotPrice(instanceType, zoneName string) (price float64, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.world.typeByName[instanceType]
	z, zok := e.world.zoneByName(zoneName)
	if t == nil || !zok || !contains(t.Zones, zoneName) {
		return 0, false
	}
	return e.prices.price(t, z, e.prices.step(e.now())), true
}
