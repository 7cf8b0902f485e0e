package journal

import (
	"maps"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// Kind says what part of the autoscaler an entry comes from.
type Kind string

// Entry kinds.
const (
	KindProvisioning      Kind = "Provisioning"
	KindLaunch            Kind = "Launch"
	KindRegistration      Kind = "Registration"
	KindInitialization    Kind = "Initialization"
	KindDisruption        Kind = "Disruption"
	KindValidation        Kind = "Validation"
	KindBlocked           Kind = "Blocked"
	KindInterruption      Kind = "Interruption"
	KindTermination       Kind = "Termination"
	KindLiveness          Kind = "Liveness"
	KindGarbageCollection Kind = "GarbageCollection"
	// KindNodeClass is a node class's readiness changing (a condition that stops holding).
	KindNodeClass Kind = "NodeClass"
	// KindAction is one write the executor performed, or in dry-run would have.
	KindAction Kind = "Action"
	// KindWorkload is a workload scaler (a HorizontalPodAutoscaler, a KEDA ScaledObject)
	// changing a workload's replicas: what makes pods pending, or nodes empty.
	KindWorkload Kind = "Workload"
)

// Entry is one decision, refusal or event of the autoscaler.
type Entry struct {
	// Seq numbers entries in the order they were recorded.
	Seq  uint64
	Time time.Time
	Kind Kind
	// Method is the disruption method (Emptiness, Drift, MultiNodeConsolidation,
	// SingleNodeConsolidation, Expiration, Interruption) where there is one.
	Method string
	// Reason is a short code: a blocked reason (Budget, PDB, DoNotDisrupt...), a disruption
	// reason (Empty, Drifted, Underutilized), an interruption kind.
	Reason Reason
	// Message says it in an operator's words, starting with Karpenter's log message where
	// Karpenter has one ("launched nodeclaim", "disrupting node(s)").
	Message  string
	NodePool string
	// NodeClaims, Nodes and Pods are the objects the entry is about.
	NodeClaims []string `json:",omitempty"`
	Nodes      []string `json:",omitempty"`
	Pods       []string `json:",omitempty"`
	// CapacityType and Zone are those of the entry's nodes, when they share one (for Karpenter's
	// metric labels).
	CapacityType string `json:",omitempty"`
	Zone         string `json:",omitempty"`
	// Decision is "delete" or "replace" on the entry recording a disruption decision.
	Decision string `json:",omitempty"`
	// Replacements are the instance types a disruption replaces its nodes with.
	Replacements []string `json:",omitempty"`
	// PriceBefore and PriceAfter are in $/hour, for decisions about money.
	PriceBefore, PriceAfter float64
	// Until is when a blocking condition ends (consolidateAfter, a budget's window), if known.
	Until time.Time
	// MessageType is an interruption message's kind in Karpenter's words (spot_interrupted...),
	// for its metric.
	MessageType string `json:",omitempty"`
	// Took is how long the step the entry concludes took, where it measures one: the scheduling
	// simulation of a provisioning pass (PodsPending), a NodeClaim's termination since its
	// deletion (Terminated), an interruption message's wait since the cloud sent it. Lived is
	// how long a terminated node lived, from its creation.
	Took  time.Duration `json:",omitempty"`
	Lived time.Duration `json:",omitempty"`
	// InstanceTook is how long a terminated NodeClaim's instance took to go once its termination
	// began (Terminated).
	InstanceTook time.Duration `json:",omitempty"`
	// DisruptionReason is why the node an eviction drains is disrupted, as its NodeClaim's
	// DisruptionReason condition says ("" when it says nothing: a forceful termination).
	DisruptionReason string `json:",omitempty"`
	// Forbids, on a Blocked entry, says that a rule forbids disrupting the node (a budget, a
	// PodDisruptionBudget, do-not-disrupt, spot-to-spot off), as opposed to a state it passes
	// through or a finding that disrupting it would not pay: the console lists these among its
	// decisions.
	Forbids bool `json:",omitempty"`
	// DryRun marks what the autoscaler would have done in dry-run mode.
	DryRun bool
	// Failed marks an action that was tried and failed.
	Failed bool `json:",omitempty"`
	// Events are also recorded as Kubernetes events.
	Events []Event `json:"-"`
}

// Saving is what the decision saves per hour.
func (e Entry) Saving() float64 { return e.PriceBefore - e.PriceAfter }

// Event is a Kubernetes event to record with an entry.
type Event struct {
	// Object is what the event is about; the entries the journal keeps drop it (Entry.kept).
	Object  runtime.Object
	Type    string // Normal or Warning
	Reason  Reason // Karpenter's reason
	Message string
}

// kept is the entry as the journal keeps it once its sinks have it: its events without their
// objects, which only the sinks read. Kept, the objects of thousands of entries (a pod per
// Nominated event) would hold as many old versions of pods in memory.
func (e Entry) kept() Entry {
	if len(e.Events) == 0 {
		return e
	}
	events := make([]Event, len(e.Events))
	for i, ev := range e.Events {
		ev.Object = nil
		events[i] = ev
	}
	e.Events = events
	return e
}

// Sink receives every entry after it is recorded (logs, events, metrics).
type Sink interface {
	Observe(Entry)
}

// Journal keeps the latest entries in memory and fans them out to its sinks. It also keeps, per
// node, why it is not being disrupted now. It is safe for concurrent use.
type Journal struct {
	mu  sync.RWMutex
	max int
	// ring holds the latest entries, at most max: once full, a record overwrites the oldest, at
	// oldest, instead of moving every kept entry down by one.
	ring   []Entry
	oldest int
	seq    uint64
	sinks  []Sink
	whyNot map[string]Entry
	subs   []chan struct{}
}

// New returns a journal keeping at most max entries (older ones are dropped).
func New(max int, sinks ...Sink) *Journal {
	return &Journal{max: max, sinks: sinks, whyNot: map[string]Entry{}}
}

// Record appends an entry and passes it to the sinks.
func (j *Journal) Record(e Entry) Entry {
	j.mu.Lock()
	j.seq++
	e.Seq = j.seq
	switch {
	case len(j.ring) < j.max:
		j.ring = append(j.ring, e.kept())
	case j.max > 0:
		j.ring[j.oldest] = e.kept()
		j.oldest = (j.oldest + 1) % j.max
	}
	sinks := j.sinks
	j.notify()
	j.mu.Unlock()
	for _, s := range sinks {
		s.Observe(e)
	}
	return e
}

// Block records why a node is not disrupted now. The journal keeps it as the node's current
// reason and records it as an entry only when the reason changes, so that a blocker re-checked
// every ten seconds appears once.
func (j *Journal) Block(node string, e Entry) {
	e.Kind = KindBlocked
	if len(e.Nodes) == 0 {
		e.Nodes = []string{node}
	}
	j.mu.Lock()
	prev, had := j.whyNot[node]
	j.whyNot[node] = e.kept()
	same := had && prev.Reason == e.Reason && prev.Message == e.Message
	if same {
		j.notify()
	}
	j.mu.Unlock()
	if !same {
		j.Record(e)
	}
}

// Unblock forgets a node's blocker (it is being disrupted, or it is gone).
func (j *Journal) Unblock(node string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.whyNot[node]; ok {
		delete(j.whyNot, node)
		j.notify()
	}
}

// WhyNot returns why a node is not disrupted now, if it is blocked.
func (j *Journal) WhyNot(node string) (Entry, bool) {
	j.mu.RLock()
	defer j.mu.RUnlock()
	e, ok := j.whyNot[node]
	return e, ok
}

// Entries returns the entries recorded after seq (0 for all kept), oldest first.
func (j *Journal) Entries(after uint64) []Entry {
	j.mu.RLock()
	defer j.mu.RUnlock()
	return j.entries(after)
}

// entries is Entries for a caller holding the lock.
func (j *Journal) entries(after uint64) []Entry {
	// Sequence numbers are consecutive, so the ring holds seq-len(ring)+1 through seq.
	n := uint64(len(j.ring))
	if after >= j.seq {
		return nil
	}
	n = min(n, j.seq-after)
	out := make([]Entry, 0, n)
	for i := len(j.ring) - int(n); i < len(j.ring); i++ {
		out = append(out, j.ring[(j.oldest+i)%len(j.ring)])
	}
	return out
}

// Snapshot is a copy of what a journal holds at one moment, for readers that must not hold the
// live journal (the console): its kept entries, oldest first, and each blocked node's blocker.
type Snapshot struct {
	Entries []Entry
	Blocked map[string]Entry
}

// WhyNot returns why a node was not disrupted when the snapshot was taken, if it was blocked.
func (s Snapshot) WhyNot(node string) (Entry, bool) {
	e, ok := s.Blocked[node]
	return e, ok
}

// Snapshot copies the kept entries and the blockers under one lock, so that the two agree.
func (j *Journal) Snapshot() Snapshot {
	j.mu.RLock()
	defer j.mu.RUnlock()
	return Snapshot{Entries: j.entries(0), Blocked: maps.Clone(j.whyNot)}
}

// Subscribe returns a channel that receives a value (coalesced) after every change.
func (j *Journal) Subscribe() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	ch := make(chan struct{}, 1)
	j.subs = append(j.subs, ch)
	return ch
}

func (j *Journal) notify() {
	for _, ch := range j.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
