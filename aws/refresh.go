package aws

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
)

// Refresh defaults.
const (
	// DefaultRefreshPeriod is how often instance types, zones and prices are read again.
	DefaultRefreshPeriod = 12 * time.Hour
	// DefaultRefreshRetry is how soon a failed refresh is tried again.
	DefaultRefreshRetry = time.Minute
)

// Names of the refreshed data sets, as Status reports them.
const (
	dataInstanceTypes  = "instance types"
	dataOnDemandPrices = "on-demand prices"
	dataSpotPrices     = "spot prices"
)

// DataStatus is the state of one data set the provider refreshes from AWS.
type DataStatus struct {
	// Source says where the data in use comes from: "ec2", "pricing-api", "catalog",
	// "spot-price-history", "synthetic" or "" before anything was read.
	Source string
	// Count is the number of entries in use (types, or type and zone pairs for spot prices).
	Count int
	// UpdatedAt is the last successful refresh; AttemptedAt the last attempt.
	UpdatedAt   time.Time
	AttemptedAt time.Time
	// Err is the last refresh's failure, "" once a refresh succeeds. The data in use then is
	// the last good one.
	Err string
}

// Status is what the console shows about the provider's view of AWS.
type Status struct {
	InstanceTypes  DataStatus
	OnDemandPrices DataStatus
	SpotPrices     DataStatus
	// Denied lists the IAM actions AWS refused (see PolicyFile).
	Denied []string
	// Calls counts the AWS calls made so far, by IAM action.
	Calls map[string]int64
}

// ec2Snapshot is an immutable view of the refreshed data. Refreshes replace maps, never change
// them, so a snapshot stays consistent while instance types are built from it.
type ec2Snapshot struct {
	infos     []instancetype.Info
	byName    map[string]instancetype.Info
	zones     map[string][]string
	onDemand  map[string]price
	spot      map[string]map[string]price
	spotKnown bool
	// generation changes with every change of the data.
	generation uint64
}

// ec2Data holds the instance types, zones and prices read from AWS, the status of each, and
// the last good data when a refresh fails.
type ec2Data struct {
	mu     sync.RWMutex
	snap   ec2Snapshot
	status map[string]DataStatus
	// logged is the errorKey of the last failure logged per data set, so that a failure that
	// repeats every retry is logged once.
	logged map[string]string
	// refreshing serializes refreshes; it is never held with mu.
	refreshing sync.Mutex
}

// newEC2Data starts with the embedded catalog's on-demand prices, the fallback when the
// Pricing API cannot be read.
func newEC2Data(cat *catalog.Catalog) *ec2Data {
	onDemand := make(map[string]price, len(cat.Entries))
	for _, e := range cat.Entries {
		onDemand[e.Name] = price{usd: e.OnDemandPrice, source: cloudprovider.PriceSource{Kind: cloudprovider.PriceCatalog}}
	}
	return &ec2Data{
		snap: ec2Snapshot{onDemand: onDemand, byName: map[string]instancetype.Info{}, zones: map[string][]string{}},
		status: map[string]DataStatus{
			dataOnDemandPrices: {Source: cloudprovider.PriceCatalog, Count: len(onDemand)},
			dataSpotPrices:     {Source: cloudprovider.PriceSynthetic},
		},
		logged: map[string]string{},
	}
}

func (d *ec2Data) snapshot() *ec2Snapshot {
	d.mu.RLock()
	defer d.mu.RUnlock()
	s := d.snap
	return &s
}

func (d *ec2Data) statusOf(name string) DataStatus {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.status[name]
}

// due reports whether a data set should be read again: never read, older than period, or
// failed more than retry ago.
func (d *ec2Data) due(name string, now time.Time, period, retry time.Duration) bool {
	s := d.statusOf(name)
	if s.AttemptedAt.IsZero() {
		return true
	}
	if s.Err != "" {
		return now.Sub(s.AttemptedAt) >= retry
	}
	return now.Sub(s.UpdatedAt) >= period
}

// Refresh reads instance types, zones, on-demand and spot prices from AWS now. A data set that
// fails keeps its last good version; the failures are returned joined and shown in Status.
func (p *Provider) Refresh(ctx context.Context) error {
	return p.refresh(ctx, func(string) bool { return true })
}

// refreshDue refreshes the data sets that are due.
func (p *Provider) refreshDue(ctx context.Context) error {
	return p.refresh(ctx, func(name string) bool {
		return p.data.due(name, p.clock.Now(), p.opts.RefreshPeriod, p.opts.RefreshRetry)
	})
}

func (p *Provider) refresh(ctx context.Context, due func(name string) bool) error {
	p.data.refreshing.Lock()
	defer p.data.refreshing.Unlock()
	var errs []error
	if due(dataInstanceTypes) {
		errs = append(errs, p.refreshInstanceTypes(ctx))
	}
	if due(dataOnDemandPrices) {
		errs = append(errs, p.refreshOnDemandPrices(ctx))
	}
	if due(dataSpotPrices) {
		errs = append(errs, p.refreshSpotPrices(ctx))
	}
	return errors.Join(errs...)
}

// Run refreshes the data sets when they are due (every RefreshPeriod, or RefreshRetry after a
// failure) until ctx ends. Failures are in Status and the log; Run returns only ctx's error.
func (p *Provider) Run(ctx context.Context) error {
	tick := p.clock.NewTicker(p.opts.RefreshRetry)
	defer tick.Stop()
	for {
		_ = p.refreshDue(ctx) // failures are recorded in Status and logged by record
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C():
		}
	}
}

func (p *Provider) refreshInstanceTypes(ctx context.Context) error {
	start := p.clock.Now()
	infos, err := fetchInstanceTypes(ctx, p.clients.EC2)
	var zones map[string][]string
	if err == nil {
		zones, err = fetchZones(ctx, p.clients.EC2)
	}
	return p.record(dataInstanceTypes, start, err, func(s *ec2Snapshot) DataStatus {
		s.infos, s.zones = infos, zones
		s.byName = make(map[string]instancetype.Info, len(infos))
		for _, info := range infos {
			s.byName[info.Name] = info
		}
		return DataStatus{Source: "ec2", Count: len(infos)}
	})
}

func (p *Provider) refreshOnDemandPrices(ctx context.Context) error {
	start := p.clock.Now()
	prices, err := fetchOnDemandPrices(ctx, p.clients.Pricing, p.opts.Region)
	return p.record(dataOnDemandPrices, start, err, func(s *ec2Snapshot) DataStatus {
		// Prices the API did not list keep their previous value (catalog or older API read).
		merged := maps.Clone(s.onDemand)
		for name, usd := range prices {
			merged[name] = price{usd: usd, source: cloudprovider.PriceSource{Kind: cloudprovider.PricePricingAPI, AsOf: start}}
		}
		s.onDemand = merged
		return DataStatus{Source: cloudprovider.PricePricingAPI, Count: len(prices)}
	})
}

func (p *Provider) refreshSpotPrices(ctx context.Context) error {
	start := p.clock.Now()
	quotes, err := fetchSpotPrices(ctx, p.clients.EC2, start)
	return p.record(dataSpotPrices, start, err, func(s *ec2Snapshot) DataStatus {
		merged := make(map[string]map[string]price, max(len(s.spot), len(quotes)))
		for name, zones := range s.spot {
			merged[name] = maps.Clone(zones)
		}
		n := 0
		for name, zones := range quotes {
			if merged[name] == nil {
				merged[name] = map[string]price{}
			}
			for zone, q := range zones {
				merged[name][zone] = price{usd: q.usd, source: cloudprovider.PriceSource{Kind: cloudprovider.PriceSpotHistory, AsOf: q.at}}
				n++
			}
		}
		s.spot, s.spotKnown = merged, true
		return DataStatus{Source: cloudprovider.PriceSpotHistory, Count: n}
	})
}

// record applies a successful read to the snapshot, or keeps the last good data and records
// the failure, logging it when it differs from the previous one.
func (p *Provider) record(name string, start time.Time, err error, apply func(*ec2Snapshot) DataStatus) error {
	p.data.mu.Lock()
	defer p.data.mu.Unlock()
	prev := p.data.status[name]
	if err != nil {
		next := prev
		next.AttemptedAt, next.Err = start, err.Error()
		p.data.status[name] = next
		if key := errorKey(err); p.data.logged[name] != key {
			p.data.logged[name] = key
			p.log.Warn("refreshing from AWS failed; keeping the last good data", "data", name, "source", prev.Source, "error", err)
		}
		return fmt.Errorf("refreshing %s: %w", name, err)
	}
	p.answered.Store(true)
	s := p.data.snap
	st := apply(&s)
	s.generation++
	p.data.snap = s
	st.UpdatedAt, st.AttemptedAt = start, start
	p.data.status[name] = st
	delete(p.data.logged, name)
	return nil
}

// Answered reports whether AWS has answered a refresh at least once: until then the provider
// works from the embedded catalog, and a controller is not ready.
func (p *Provider) Answered() bool { return p.answered.Load() }

// Status returns the state of the refreshed data, the permissions AWS denied and the calls made.
func (p *Provider) Status() Status {
	p.data.mu.RLock()
	defer p.data.mu.RUnlock()
	return Status{
		InstanceTypes:  p.data.status[dataInstanceTypes],
		OnDemandPrices: p.data.status[dataOnDemandPrices],
		SpotPrices:     p.data.status[dataSpotPrices],
		Denied:         p.clients.Calls.Denied(),
		Calls:          p.clients.Calls.Counts(),
	}
}
