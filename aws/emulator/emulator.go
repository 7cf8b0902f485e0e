package emulator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/aws/policy"
)

// Config shapes the emulated account. Zero values take the defaults documented on each field;
// DefaultConfig returns the realistic timings the demo uses.
type Config struct {
	// Region is the region every service answers for (default us-east-1). The catalog is
	// us-east-1's: in another region the same types, zone letters and prices are used.
	Region string
	// AccountID owns the subnets, security groups, custom AMIs, roles and the queue
	// (default 123456789012).
	AccountID string
	// ClusterName is the value of the default discovery tag and of the default queue name
	// (default my-cluster, the name most seed manifests use).
	ClusterName string
	// Zones are the availability zones, each with one subnet and instance type offerings
	// (default REGION + a, b, c). Only the letters a to f are known to the catalog.
	Zones []string
	// DiscoveryTags are set on every subnet and on the security group (default
	// karpenter.sh/discovery: ClusterName and network: private).
	DiscoveryTags map[string]string
	// FreeAddresses is each subnet's AvailableIpAddressCount at start (default 8187, a /19).
	FreeAddresses int
	// QueueName is the interruption queue that exists from the start and receives the
	// EventBridge events (default ClusterName).
	QueueName string
	// Roles are IAM role names that exist (default KarpenterNodeRole and eks-karpenter-node-role).
	Roles []string
	// Cluster is what EKS DescribeCluster says of the cluster named ClusterName: its API
	// server, CA, version and service CIDR (Karpenter reads the CIDR for AL2023 user data).
	Cluster EKSCluster

	// Clock drives boot and shutdown delays, interruption deadlines, spot price movement,
	// message visibility, long polls and call latency (default the real clock).
	Clock clock.WithTicker
	// BootDelay is how long an instance stays pending (zero: running at once).
	BootDelay time.Duration
	// ShutdownDelay is how long an instance stays shutting-down or stopping (zero: at once).
	ShutdownDelay time.Duration
	// TerminatedRetention is how long a terminated instance stays visible (default 1h, as AWS).
	TerminatedRetention time.Duration
	// CallLatency is added to every API call (zero: none).
	CallLatency time.Duration
	// SpotPriceInterval is how often spot prices move (default 10m).
	SpotPriceInterval time.Duration
	// HoldSpotPrices keeps every spot price at its first step's value, whenever it is asked,
	// so that runs at different times see one market (a benchmark comparing two controllers).
	HoldSpotPrices bool
	// InterruptionNotice is how long after a spot or capacity reservation interruption warning
	// the instance is taken back (default InterruptionNotice, AWS's two minutes; the demo
	// shortens it so that the story fits in a few minutes).
	InterruptionNotice time.Duration
	// InstanceLimit is how many instances may hold capacity (all but stopped and terminated
	// ones) at once; a CreateFleet that would pass it fails with EC2's InstanceLimitExceeded
	// (default 5000, the emulator's own figure: EC2 counts vCPUs per instance family instead).
	InstanceLimit int
	// Seed makes spot prices, identifiers and throttling shares reproducible.
	Seed int64
	// Policy, when set, is the identity-based IAM policy every call is authorized against
	// before it is served, as AWS authorizes it (authorize.go): a refused call gets the
	// service's access denied error, and an instant fleet's refused launches are reported in
	// its errors. Refusals and AllowedActions tell what it decided; Enforce replaces it. Nil
	// allows every call.
	Policy *policy.Evaluator
}

// DefaultConfig is the configuration with realistic timings: 15 s boot, 5 s shutdown, 1 h
// retention of terminated instances, 10 min spot price steps, and 20 ms per call.
func DefaultConfig() Config {
	return Config{
		BootDelay:     15 * time.Second,
		ShutdownDelay: 5 * time.Second,
		CallLatency:   20 * time.Millisecond,
	}
}

const (
	defaultRegion        = "us-east-1"
	defaultAccountID     = "123456789012"
	defaultClusterName   = "my-cluster"
	defaultFreeAddresses = 8187
	defaultRetention     = time.Hour
	defaultPriceInterval = 10 * time.Minute
	defaultInstanceLimit = 5000
	// EKS's own default service CIDR and a supported version, when the caller names none.
	defaultServiceCIDR    = "10.100.0.0/16"
	defaultClusterVersion = "1.33"
)

func (c Config) withDefaults() Config {
	if c.Region == "" {
		c.Region = defaultRegion
	}
	if c.AccountID == "" {
		c.AccountID = defaultAccountID
	}
	if c.ClusterName == "" {
		c.ClusterName = defaultClusterName
	}
	if len(c.Zones) == 0 {
		c.Zones = []string{c.Region + "a", c.Region + "b", c.Region + "c"}
	}
	if c.DiscoveryTags == nil {
		c.DiscoveryTags = map[string]string{"karpenter.sh/discovery": c.ClusterName, "network": "private"}
	}
	if c.FreeAddresses == 0 {
		c.FreeAddresses = defaultFreeAddresses
	}
	if c.QueueName == "" {
		c.QueueName = c.ClusterName
	}
	if c.Cluster.ServiceCIDR == "" {
		c.Cluster.ServiceCIDR = defaultServiceCIDR
	}
	if c.Cluster.Version == "" {
		c.Cluster.Version = defaultClusterVersion
	}
	if c.Roles == nil {
		c.Roles = []string{"KarpenterNodeRole", "eks-karpenter-node-role"}
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.TerminatedRetention == 0 {
		c.TerminatedRetention = defaultRetention
	}
	if c.SpotPriceInterval == 0 {
		c.SpotPriceInterval = defaultPriceInterval
	}
	if c.InstanceLimit == 0 {
		c.InstanceLimit = defaultInstanceLimit
	}
	if c.InterruptionNotice == 0 {
		c.InterruptionNotice = InterruptionNotice
	}
	return c
}

func (c Config) validate() error {
	for _, z := range c.Zones {
		if !strings.HasPrefix(z, c.Region) || len(z) != len(c.Region)+1 || !strings.Contains("abcdef", z[len(z)-1:]) {
			return fmt.Errorf("zone %q: want %s followed by one letter a to f", z, c.Region)
		}
	}
	if c.FreeAddresses < 0 {
		return fmt.Errorf("free addresses %d: must not be negative", c.FreeAddresses)
	}
	if !validQueueName(c.QueueName) {
		return fmt.Errorf("queue name %q: want 1 to 80 letters, digits, - or _", c.QueueName)
	}
	if c.BootDelay < 0 || c.ShutdownDelay < 0 || c.CallLatency < 0 || c.TerminatedRetention < 0 || c.SpotPriceInterval < 0 {
		return errors.New("durations must not be negative")
	}
	return nil
}

// Emulator is a running in-process AWS: EC2, IAM, SQS, SSM and Pricing on one HTTP listener,
// plus the admin API. Its methods are safe for concurrent use.
type Emulator struct {
	cfg      Config
	clock    clock.WithTicker
	started  time.Time // the EKS cluster's creation time
	endpoint string
	listener net.Listener
	server   *http.Server
	admin    http.Handler
	// transport carries the requests of HTTPClient's clients.
	transport *http.Transport

	// mu guards everything below.
	mu        sync.Mutex
	rng       *rand.Rand
	world     *world
	instances map[string]*instance
	// schedule holds the instances' next state changes, earliest first.
	schedule changeHeap
	// visits counts the schedule entries advance examined, so that a test can tell that a
	// state change costs the changed instances, not all of them.
	visits    int
	templates map[string]*launchTemplate
	fleets    map[string]*fleetRecord // by client token
	ltTokens  map[string]string       // CreateLaunchTemplate client token -> template id
	queues    map[string]*queue
	profiles  map[string]*instanceProfile
	faults    faults
	calls     map[string]int
	prices    *spotPrices
	// policy is the policy in force (Config.Policy, or Enforce's); allowed counts the
	// authorizations it allowed, by IAM action; refusals are those it refused.
	policy   *policy.Evaluator
	allowed  map[string]int
	refusals []Refusal
	// changed is closed and replaced whenever a queue gains a message, waking long polls.
	changed chan struct{}

	wake     chan struct{} // nudges the scheduler when a nearer event is scheduled
	done     chan struct{} // closed by shutdown
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// Start builds the emulated account from the embedded catalog and serves it on
// 127.0.0.1 with a free port. The emulator stops when ctx ends or Close is called.
func Start(ctx context.Context, cfg Config) (*Emulator, error) {
	return start(ctx, cfg, "127.0.0.1:0")
}

func start(ctx context.Context, cfg Config, listen string) (*Emulator, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("emulator config: %w", err)
	}
	cat, err := catalog.Load()
	if err != nil {
		return nil, fmt.Errorf("emulator: load catalog: %w", err)
	}
	e := &Emulator{
		cfg:       cfg,
		clock:     cfg.Clock,
		started:   cfg.Clock.Now(),
		rng:       rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6e6f646570696c6f)),
		instances: map[string]*instance{},
		templates: map[string]*launchTemplate{},
		fleets:    map[string]*fleetRecord{},
		ltTokens:  map[string]string{},
		queues:    map[string]*queue{},
		profiles:  map[string]*instanceProfile{},
		calls:     map[string]int{},
		policy:    cfg.Policy,
		allowed:   map[string]int{},
		changed:   make(chan struct{}),
		wake:      make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	e.faults = newFaults()
	e.world = newWorld(cfg, cat)
	e.prices = newSpotPrices(cfg.Seed, cfg.SpotPriceInterval, cfg.HoldSpotPrices)
	e.queues[cfg.QueueName] = newQueue(cfg.QueueName, e.clock.Now(), queueAttributes{})
	e.addDefaultProfile()
	e.admin = e.adminHandler()
	e.transport = http.DefaultTransport.(*http.Transport).Clone()

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("emulator: listen on %q: %w", listen, err)
	}
	e.listener = ln
	e.endpoint = "http://" + ln.Addr().String()
	e.server = &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}

	e.wg.Add(3)
	go func() {
		defer e.wg.Done()
		if err := e.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			e.shutdown()
		}
	}()
	go func() {
		defer e.wg.Done()
		e.runScheduler()
	}()
	go func() {
		defer e.wg.Done()
		select {
		case <-ctx.Done():
			e.shutdown()
		case <-e.done:
		}
	}()
	return e, nil
}

// Endpoint is the base URL of every service (EC2, IAM, SQS, SSM, Pricing): give it to each
// SDK client as BaseEndpoint.
func (e *Emulator) Endpoint() string { return e.endpoint }

// AdminEndpoint is the base URL of the admin API (see the package documentation).
func (e *Emulator) AdminEndpoint() string { return e.endpoint + adminPrefix }

// Region is the region the emulator answers for.
func (e *Emulator) Region() string { return e.cfg.Region }

// QueueURL is the URL of the interruption queue, as GetQueueUrl returns it.
func (e *Emulator) QueueURL() string { return e.queueURL(e.cfg.QueueName) }

// QueueName is the interruption queue's name (Karpenter's INTERRUPTION_QUEUE takes a name).
func (e *Emulator) QueueName() string { return e.cfg.QueueName }

// Close stops the listener, ends long polls and the scheduler, and waits for them.
func (e *Emulator) Close() error {
	e.shutdown()
	e.wg.Wait()
	e.transport.CloseIdleConnections()
	return nil
}

// shutdown ends the long polls and latency waits, lets the requests in flight finish, and
// closes the listener and the connections.
func (e *Emulator) shutdown() {
	e.stopOnce.Do(func() {
		close(e.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.server.Shutdown(ctx); err != nil {
			_ = e.server.Close()
		}
	})
}

// CallCounts returns how many times each operation was called, failed calls included.
func (e *Emulator) CallCounts() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int, len(e.calls))
	for k, v := range e.calls {
		out[k] = v
	}
	return out
}

// ResetCallCounts sets every call count to zero.
func (e *Emulator) ResetCallCounts() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = map[string]int{}
}

// newID returns prefix-HEX with n random hex digits. The caller holds e.mu.
func (e *Emulator) newID(prefix string, n int) string {
	const hexDigits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[e.rng.IntN(16)]
	}
	return prefix + "-" + string(b)
}

// newUUID returns a random UUID-shaped string. The caller holds e.mu.
func (e *Emulator) newUUID() string {
	hi, lo := e.rng.Uint64(), e.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xfff, 0x8000|(lo>>48)&0x3fff, lo&0xffffffffffff)
}

// broadcast wakes the long polls. The caller holds e.mu.
func (e *Emulator) broadcast() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// waitClock waits d of emulator time, or until ctx or the emulator ends. It reports whether
// the full time passed.
func (e *Emulator) waitClock(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := e.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	case <-e.done:
		return false
	}
}
