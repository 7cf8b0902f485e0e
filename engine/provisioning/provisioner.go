package provisioning

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
)

// Options tune the provisioner.
type Options struct {
	// BatchIdle and BatchMax are the batch windows (Karpenter: 1 s and 10 s).
	BatchIdle, BatchMax time.Duration
	// SolveTimeout bounds one solve; what it planned by then is launched.
	SolveTimeout time.Duration
	// NominationTTL is how long a node the solve counted on is kept from disruption.
	NominationTTL time.Duration
	// Scheduling says how solves treat soft constraints and pack NodeClaims (its deadline is
	// set per solve from SolveTimeout).
	Scheduling scheduling.Options
	// WellKnownLabels are the labels the cloud puts on every node (see scheduling.Input).
	WellKnownLabels []string
}

// DefaultOptions are Karpenter's, but for the price cliff new NodeClaims stop at.
func DefaultOptions() Options {
	o := Options{BatchIdle: time.Second, BatchMax: 10 * time.Second, SolveTimeout: time.Minute,
		NominationTTL: 20 * time.Second, Scheduling: scheduling.DefaultOptions()}
	o.Scheduling.PriceCliff = scheduling.DefaultPriceCliff
	return o
}

// Provisioner launches NodeClaims for pods that fit nowhere.
type Provisioner struct {
	cluster *state.Cluster
	exec    *executor.Executor
	cloud   cloudprovider.CloudProvider
	journal *journal.Journal
	clock   clock.Clock
	opts    Options
	last    atomic.Pointer[Outcome]
	// cache keeps the NodePools' instance type tables from one pass to the next.
	cache scheduling.Cache
	// solves numbers the solves, to tell them apart in metrics.
	solves atomic.Uint64
	// barren are the NodePools last found with no instance type to launch (reported once).
	mu     sync.Mutex
	barren map[string]bool
	// told is what each pending pod was last told of why it fits nowhere, and when.
	told map[types.UID]told
}

// told is the FailedScheduling message a pod last heard, and when.
type told struct {
	message string
	at      time.Time
}

// UnschedulableHeartbeat is how often a pod that still fits nowhere for the same reasons is told
// so again (in the journal and as an event): Karpenter's FailedScheduling dedupe timeout. A pod
// hears at once when its reasons change.
const UnschedulableHeartbeat = 5 * time.Minute

// Outcome is what one provisioning pass found and did; the console reads the latest.
type Outcome struct {
	Time    time.Time
	Results *scheduling.Results
	// Created names the NodeClaims created (or that would be, in dry-run).
	Created []string
}

// New returns a provisioner that writes through exec and reads instance types from cloud.
func New(cluster *state.Cluster, exec *executor.Executor, cloud cloudprovider.CloudProvider, j *journal.Journal, c clock.Clock, opts Options) *Provisioner {
	return &Provisioner{cluster: cluster, exec: exec, cloud: cloud, journal: j, clock: c, opts: opts}
}

// Last returns the latest pass's outcome, or nil before the first.
func (p *Provisioner) Last() *Outcome { return p.last.Load() }

// Reconcile runs one provisioning pass over the current state. It does nothing until every
// informer has synced: acting on a partial view could launch capacity that exists.
func (p *Provisioner) Reconcile(ctx context.Context) (*Outcome, error) {
	ctx = cloudprovider.WithController(ctx, "provisioner")
	snap := p.cluster.Snapshot()
	if !snap.Synced {
		return nil, nil
	}
	pending := snap.PendingPods()
	if len(pending) == 0 {
		return nil, nil
	}
	now := p.clock.Now()
	p.cluster.AckPods(pending, now)
	cat := LoadCatalog(ctx, p.cloud, snap)
	// The deadline bounds computing, so it is on the wall clock, not the (possibly fake or
	// accelerated) clock the rest of the engine runs on.
	opts := p.opts.Scheduling
	start := time.Now()
	opts.Deadline = start.Add(p.opts.SolveTimeout)
	opts.Progress = p.progress(p.solves.Add(1))
	in := Problem(snap, cat, pending, opts, p.opts.WellKnownLabels, nil)
	in.Cache = &p.cache
	prep := scheduling.Prepare(in)
	results := prep.Solve(in.Pods, nil, nil)
	p.reportNoInstanceTypes(cat, prep.NoInstanceTypes(), now)
	p.measure(results, now)
	p.journal.Record(journal.Entry{Time: now, Kind: journal.KindProvisioning, Reason: journal.ReasonPodsPending, Took: time.Since(start),
		Message: fmt.Sprintf("found provisionable pod(s): %d", len(pending)), Pods: podNames(pending)})
	out := &Outcome{Time: now, Results: results}
	if n := len(results.NewNodeClaims); n > 0 {
		p.journal.Record(journal.Entry{Time: now, Kind: journal.KindProvisioning, Reason: journal.ReasonNodeClaimsComputed,
			Message:    fmt.Sprintf("computed new nodeclaim(s) to fit pod(s): %d nodeclaims for %d pods", n, placed(results)),
			PriceAfter: results.TotalPricePerHour(), DryRun: p.exec.DryRun()})
	}
	p.nominate(results, now)
	limits := newLimitCheck(snap, cat)
	for _, nc := range results.NewNodeClaims {
		if msg := limits.admit(nc); msg != "" {
			p.journal.Record(journal.Entry{Time: now, Kind: journal.KindProvisioning, Reason: scheduling.ReasonLimitExceeded,
				NodePool: nc.NodePool, Message: msg, Pods: podNames(nc.Pods)})
			continue
		}
		name, err := p.create(ctx, cat.Pools[nc.NodePool], nc)
		if err != nil {
			return out, err
		}
		out.Created = append(out.Created, name)
	}
	p.reportUnschedulable(pending, results, now)
	p.last.Store(out)
	return out, nil
}

// create writes one NodeClaim through the executor; in dry-run the executor journals that it
// would, and the planned NodeClaim's hostname stands for it.
func (p *Provisioner) create(ctx context.Context, pt *PoolTypes, nc *scheduling.NodeClaim) (string, error) {
	entry := journal.Entry{Time: p.clock.Now(), Kind: journal.KindProvisioning, Reason: journal.ReasonNodeClaimCreated, NodePool: nc.NodePool,
		Pods: podNames(nc.Pods), PriceAfter: nc.PricePerHour(), Replacements: []string{nc.InstanceType.Name}}
	created, err := CreateNodeClaim(ctx, p.exec, p.cluster, pt.NodePool, nc, fmt.Sprintf("for %d pods of nodepool %s: %s %s in %s at $%.4f/h", len(nc.Pods),
		nc.NodePool, nc.Offering.CapacityType, nc.InstanceType.Name, nc.Offering.Zone, nc.PricePerHour()))
	if executor.NotPerformed(err) {
		return nc.Hostname, nil
	}
	if err != nil {
		return "", fmt.Errorf("creating a nodeclaim for nodepool %q: %w", nc.NodePool, err)
	}
	entry.NodeClaims = []string{created.Name}
	entry.Message = fmt.Sprintf("created nodeclaim %s for %d pods: %d instance types from %s at $%.4f/h (%s in %s)", created.Name,
		len(nc.Pods), len(nc.InstanceTypes), nc.InstanceType.Name, nc.PricePerHour(), nc.Offering.CapacityType, nc.Offering.Zone)
	if c := nc.StoppedAt; c != nil {
		entry.Message += fmt.Sprintf("; it stopped taking pods short of %s, %.2fx the price for pods like its own (--price-cliff %g)",
			c.InstanceType, c.Ratio, p.opts.Scheduling.PriceCliff)
	}
	p.journal.Record(entry)
	// Count on the new NodeClaim for its pods until it registers, as on any in-flight capacity.
	p.cluster.Nominate(created.Name, p.clock.Now().Add(p.opts.NominationTTL))
	return created.Name, nil
}

// progress measures how far solve n has got while it runs.
func (p *Provisioner) progress(n uint64) func(int, time.Duration, bool) {
	id := strconv.FormatUint(n, 10)
	return func(queued int, ran time.Duration, done bool) {
		if done {
			p.journal.Measure(journal.Measurement{Measure: journal.MeasureSolveDone, Controller: "provisioner", SchedulingID: id})
			return
		}
		p.journal.Measure(journal.Measurement{Measure: journal.MeasureSolveQueue, Controller: "provisioner", SchedulingID: id, Value: float64(queued)})
		p.journal.Measure(journal.Measurement{Measure: journal.MeasureSolveRunning, Controller: "provisioner", SchedulingID: id, Value: ran.Seconds()})
	}
}

// measure notes the solve's decisions about each pod in the cluster state, for Karpenter's pod
// metrics, and measures how long the newly decided pods waited and how many fit nowhere.
func (p *Provisioner) measure(results *scheduling.Results, now time.Time) {
	var placed, failed []*corev1.Pod
	for _, nc := range results.NewNodeClaims {
		placed = append(placed, nc.Pods...)
	}
	for _, n := range results.ExistingNodes {
		placed = append(placed, n.Pods...)
	}
	ignored := 0
	for _, pe := range results.Unschedulable {
		failed = append(failed, pe.Pod)
		if pe.Ignored() {
			ignored++
		}
	}
	for _, d := range p.cluster.DecidePods(placed, failed, now) {
		p.journal.Measure(journal.Measurement{Measure: journal.MeasureSchedulingDecision, Value: d.Seconds()})
	}
	// As Karpenter counts them: the ignored pods apart, never given to the solve.
	p.journal.Measure(journal.Measurement{Measure: journal.MeasureUnschedulablePods, Controller: "provisioner", Value: float64(len(failed) - ignored)})
	p.journal.Measure(journal.Measurement{Measure: journal.MeasureIgnoredPods, Value: float64(ignored)})
}

// nominate keeps the existing nodes and in-flight NodeClaims the solve placed pods on from being
// disrupted for a while, and tells each pod where it should go.
func (p *Provisioner) nominate(results *scheduling.Results, now time.Time) {
	for _, n := range results.ExistingNodes {
		p.cluster.Nominate(n.Name, now.Add(p.opts.NominationTTL))
		events := make([]journal.Event, len(n.Pods))
		for i, pod := range n.Pods {
			events[i] = journal.Event{Object: pod, Type: corev1.EventTypeNormal, Reason: journal.ReasonNominated, Message: "Pod should schedule on: " + n.Name}
		}
		p.journal.Record(journal.Entry{Time: now, Kind: journal.KindProvisioning, Reason: journal.ReasonNominated, Nodes: []string{n.Name},
			Pods: podNames(n.Pods), DryRun: p.exec.DryRun(), Events: events,
			Message: fmt.Sprintf("nominated %s for %d pod(s)", n.Name, len(n.Pods))})
	}
}

// reportNoInstanceTypes warns on each NodePool that can launch nothing, as Karpenter does, once
// until it can again.
func (p *Provisioner) reportNoInstanceTypes(cat *Catalog, pools []string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	barren := map[string]bool{}
	for _, name := range pools {
		barren[name] = true
		if p.barren[name] {
			continue
		}
		msg := "NodePool requirements filtered out all compatible available instance types"
		p.journal.Record(journal.Entry{Time: now, Kind: journal.KindProvisioning, Reason: journal.ReasonNoCompatibleInstanceTypes, NodePool: name,
			Message: fmt.Sprintf("nodepool %s: %s", name, msg), DryRun: p.exec.DryRun(),
			Events: []journal.Event{{Object: cat.Pools[name].NodePool, Type: corev1.EventTypeWarning, Reason: journal.ReasonNoCompatibleInstanceTypes, Message: msg}}})
	}
	p.barren = barren
}

// reportUnschedulable tells each pod that fits nowhere why, as a FailedScheduling event, when
// its reasons changed or UnschedulableHeartbeat passed since it was last told: a pod no NodePool
// can ever fit would otherwise hear the same thing every batch. What pods were told is kept for
// the pods still pending only.
func (p *Provisioner) reportUnschedulable(pending []*corev1.Pod, results *scheduling.Results, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	last := p.told
	p.told = make(map[types.UID]told, len(results.Unschedulable))
	stillPending := make(map[types.UID]bool, len(pending))
	for _, pod := range pending {
		stillPending[pod.UID] = true
	}
	for uid, t := range last {
		if stillPending[uid] {
			p.told[uid] = t
		}
	}
	for _, pe := range results.Unschedulable {
		var parts []string
		for _, r := range pe.Reasons {
			if r.NodePool != "" {
				parts = append(parts, fmt.Sprintf("nodepool %q: %s", r.NodePool, r.Message))
			} else {
				parts = append(parts, r.Message)
			}
		}
		msg := "Failed to schedule pod, " + strings.Join(parts, "; ")
		if t, ok := p.told[pe.Pod.UID]; ok && t.message == msg && now.Sub(t.at) < UnschedulableHeartbeat {
			continue
		}
		p.told[pe.Pod.UID] = told{message: msg, at: now}
		e := journal.Entry{Time: now, Kind: journal.KindProvisioning, Reason: journal.ReasonFailedScheduling,
			Pods: []string{pe.Pod.Namespace + "/" + pe.Pod.Name}, Message: msg, DryRun: p.exec.DryRun()}
		// A pod that wants no Karpenter node hears nothing from Karpenter either.
		if len(pe.Reasons) == 0 || pe.Reasons[0].Code != scheduling.ReasonNotForKarpenter {
			e.Events = []journal.Event{{Object: pe.Pod, Type: corev1.EventTypeWarning, Reason: journal.ReasonFailedScheduling, Message: msg}}
		}
		p.journal.Record(e)
	}
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}

func placed(r *scheduling.Results) int {
	n := 0
	for _, nc := range r.NewNodeClaims {
		n += len(nc.Pods)
	}
	return n
}
