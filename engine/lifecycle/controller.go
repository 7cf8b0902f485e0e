package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Options tune the lifecycle.
type Options struct {
	// LaunchTTL and RegistrationTTL: a NodeClaim not launched within LaunchTTL of its creation,
	// or not registered within RegistrationTTL of its launch, is deleted.
	LaunchTTL, RegistrationTTL time.Duration
	// LaunchConcurrency is how many NodeClaims launch at once (at least 1). A launch waits
	// seconds on the cloud, so a scale-out of hundreds of NodeClaims launched one after another
	// would reach capacity minutes late; Karpenter launches each in a reconcile of its own.
	LaunchConcurrency int
}

// DefaultOptions are Karpenter's TTLs, with launches 64 at a time: enough for a scale-out of a
// thousand NodeClaims to launch within seconds, while bounding the CreateFleet calls and API
// writes in flight.
func DefaultOptions() Options {
	return Options{LaunchTTL: 5 * time.Minute, RegistrationTTL: 15 * time.Minute, LaunchConcurrency: 64}
}

// Controller takes each NodeClaim from creation to an initialized node, and deletes those that
// expire or never come up.
type Controller struct {
	cluster *state.Cluster
	exec    *executor.Executor
	cloud   cloudprovider.CloudProvider
	journal *journal.Journal
	clock   clock.WithTicker
	opts    Options
	// backoffMu guards backoff, which concurrent launches share.
	backoffMu sync.Mutex
	backoff   map[string]backoff
	// driftChecked remembers the cloud's last drift answer per NodeClaim.
	driftChecked map[string]driftCheck
}

// backoff spaces out retries of a NodeClaim whose launch failed for a reason other than capacity.
type backoff struct {
	next  time.Time
	delay time.Duration
}

// New returns a lifecycle controller that writes and launches through exec and asks cloud about
// drift and machines.
func New(cluster *state.Cluster, exec *executor.Executor, cloud cloudprovider.CloudProvider, j *journal.Journal, c clock.WithTicker, opts Options) *Controller {
	return &Controller{cluster: cluster, exec: exec, cloud: cloud, journal: j, clock: c, opts: opts, backoff: map[string]backoff{},
		driftChecked: map[string]driftCheck{}}
}

// Reconcile takes one step for every NodeClaim; a failure on one does not hold up the others.
func (c *Controller) Reconcile(ctx context.Context) {
	ctx = cloudprovider.WithController(ctx, "nodeclaim.lifecycle")
	snap := c.cluster.Snapshot()
	if !snap.Synced {
		return
	}
	// NodeClaims still to launch step concurrently (each waits on the cloud); the others, whose
	// steps are API writes only, one after another.
	var launches []*state.Node
	for _, sn := range snap.Nodes {
		switch {
		case sn.NodeClaim == nil || sn.NodeClaim.DeletionTimestamp != nil:
		case !conditionTrue(sn.NodeClaim, karpv1.ConditionTypeLaunched):
			launches = append(launches, sn)
		default:
			c.step(ctx, snap, sn)
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(c.opts.LaunchConcurrency, 1))
	for _, sn := range launches {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			c.step(ctx, snap, sn)
		})
	}
	wg.Wait()
	if err := c.reconcileNodePools(ctx, snap); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) && !executor.NotPerformed(err) {
		c.journal.Record(journal.Entry{Time: c.clock.Now(), Kind: journal.KindProvisioning, Reason: journal.ReasonError, Message: "nodepool status: " + err.Error()})
	}
	exists := func(name string) bool {
		return slices.ContainsFunc(snap.NodeClaims, func(nc *karpv1.NodeClaim) bool { return nc.Name == name })
	}
	c.backoffMu.Lock()
	for name := range c.backoff {
		if !exists(name) {
			delete(c.backoff, name)
		}
	}
	c.backoffMu.Unlock()
	for name := range c.driftChecked {
		if !exists(name) {
			delete(c.driftChecked, name)
		}
	}
}

// step takes one step for a NodeClaim and journals what went wrong.
func (c *Controller) step(ctx context.Context, snap *state.Snapshot, sn *state.Node) {
	if err := c.reconcile(ctx, snap, sn); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) && !executor.NotPerformed(err) {
		c.journal.Record(journal.Entry{Time: c.clock.Now(), Kind: journal.KindLaunch, Reason: journal.ReasonError, NodeClaims: []string{sn.NodeClaim.Name},
			NodePool: sn.NodePool(), Message: fmt.Sprintf("nodeclaim %s: %v", sn.NodeClaim.Name, err)})
	}
}

func (c *Controller) reconcile(ctx context.Context, snap *state.Snapshot, sn *state.Node) error {
	nc := sn.NodeClaim
	if !slices.Contains(nc.Finalizers, karpv1.TerminationFinalizer) {
		if _, err := c.exec.UpdateNodeClaim(ctx, nc.Name, "add finalizer "+karpv1.TerminationFinalizer, func(o *karpv1.NodeClaim) error {
			if !slices.Contains(o.Finalizers, karpv1.TerminationFinalizer) {
				o.Finalizers = append(o.Finalizers, karpv1.TerminationFinalizer)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if expired, at := expiredAt(nc, c.clock.Now()); expired {
		return c.expire(ctx, sn, at)
	}
	switch {
	case !conditionTrue(nc, karpv1.ConditionTypeLaunched):
		return c.launch(ctx, sn)
	case !conditionTrue(nc, karpv1.ConditionTypeRegistered):
		return c.register(ctx, sn)
	case !conditionTrue(nc, karpv1.ConditionTypeInitialized):
		return c.initialize(ctx, sn)
	}
	return c.observe(ctx, snap, sn)
}

// launch asks the cloud for the NodeClaim's machine. A retry after a crash gets the same
// machine back (the cloud makes launches idempotent per NodeClaim).
func (c *Controller) launch(ctx context.Context, sn *state.Node) error {
	nc, now := sn.NodeClaim, c.clock.Now()
	if now.Sub(nc.CreationTimestamp.Time) > c.opts.LaunchTTL {
		return c.giveUp(ctx, sn, fmt.Sprintf("not launched within %s", c.opts.LaunchTTL))
	}
	c.backoffMu.Lock()
	b, retried := c.backoff[nc.Name]
	c.backoffMu.Unlock()
	if retried && now.Before(b.next) {
		return nil
	}
	launched, err := c.exec.Launch(ctx, nc)
	if executor.NotPerformed(err) {
		return err
	}
	if cloudprovider.IsInsufficientCapacity(err) {
		c.journal.Record(journal.Entry{Time: now, Kind: journal.KindLaunch, Reason: journal.ReasonInsufficientCapacity, NodeClaims: []string{nc.Name},
			NodePool: sn.NodePool(), Message: fmt.Sprintf("failed launching nodeclaim %s, deleting it so its pods are planned again: %v", nc.Name, err),
			Events: []journal.Event{{Object: nc, Type: corev1.EventTypeWarning, Reason: journal.ReasonInsufficientCapacityError, Message: err.Error()}}})
		c.setBackoff(nc.Name, nil)
		return ignoreNotFound(c.exec.DeleteNodeClaim(ctx, nc.Name, "(insufficient capacity)"))
	}
	if err != nil {
		var notReady *cloudprovider.NodeClassNotReadyError
		if !retried && errors.As(err, &notReady) {
			c.journal.Record(journal.Entry{Time: now, Kind: journal.KindLaunch, Reason: journal.ReasonNodeClassNotReady, NodeClaims: []string{nc.Name},
				NodePool: sn.NodePool(), Message: fmt.Sprintf("cannot launch nodeclaim %s yet, retrying: %v", nc.Name, err),
				Events: []journal.Event{{Object: nc, Type: corev1.EventTypeWarning, Reason: journal.ReasonNodeClassNotReady,
					Message: fmt.Sprintf("NodeClaim %s event: %s", nc.Name, err)}}})
		}
		b.delay = min(max(2*b.delay, time.Second), 5*time.Minute)
		b.next = now.Add(b.delay)
		c.setBackoff(nc.Name, &b)
		// As Karpenter: the launch is not known to have failed for good, so Unknown, with the
		// provider's reason when it names one.
		reason, message := "LaunchFailed", err.Error()
		var failed *cloudprovider.CreateError
		if errors.As(err, &failed) {
			reason, message = failed.Reason, failed.Message
		}
		_, uerr := c.exec.UpdateNodeClaimStatus(ctx, nc.Name, fmt.Sprintf("set Launched=Unknown (%s)", reason), func(o *karpv1.NodeClaim) error {
			setCondition(o, karpv1.ConditionTypeLaunched, metav1.ConditionUnknown, reason, message, now)
			return nil
		})
		return errors.Join(fmt.Errorf("launching (retry in %s): %w", b.delay, err), uerr)
	}
	c.setBackoff(nc.Name, nil)
	// The annotations carry the node class's hash, its version and the instance profile: without
	// them, EC2NodeClass drift could not be seen on this NodeClaim.
	if _, err := c.exec.UpdateNodeClaim(ctx, nc.Name, "copy the launched instance's labels and annotations", func(o *karpv1.NodeClaim) error {
		if o.Labels == nil {
			o.Labels = map[string]string{}
		}
		maps.Copy(o.Labels, launched.Labels)
		if len(launched.Annotations) > 0 && o.Annotations == nil {
			o.Annotations = map[string]string{}
		}
		maps.Copy(o.Annotations, launched.Annotations)
		return nil
	}); err != nil {
		return err
	}
	changed, err := c.setConditionOnce(ctx, nc.Name, karpv1.ConditionTypeLaunched, now, func(o *karpv1.NodeClaim) {
		o.Status.ProviderID = launched.Status.ProviderID
		o.Status.ImageID = launched.Status.ImageID
		o.Status.Capacity = launched.Status.Capacity
		o.Status.Allocatable = launched.Status.Allocatable
	})
	if err != nil || !changed {
		return err // a pass that saw stale state launched it already: the cloud returned the same machine
	}
	l := launched.Labels
	c.journal.Record(journal.Entry{Time: now, Kind: journal.KindLaunch, Reason: journal.ReasonLaunched, NodeClaims: []string{nc.Name}, NodePool: sn.NodePool(),
		Replacements: []string{l[corev1.LabelInstanceTypeStable]},
		Message: fmt.Sprintf("launched nodeclaim %s: %s %s in %s (%s)", nc.Name, l[karpv1.CapacityTypeLabelKey], l[corev1.LabelInstanceTypeStable],
			l[corev1.LabelTopologyZone], launched.Status.ProviderID),
		Events: []journal.Event{{Object: nc, Type: corev1.EventTypeNormal, Reason: journal.ReasonLaunched,
			Message: fmt.Sprintf("Launched %s %s in %s", l[karpv1.CapacityTypeLabelKey], l[corev1.LabelInstanceTypeStable], l[corev1.LabelTopologyZone])}}})
	return nil
}

// setBackoff remembers b for the NodeClaim name, or forgets its backoff when b is nil.
func (c *Controller) setBackoff(name string, b *backoff) {
	c.backoffMu.Lock()
	defer c.backoffMu.Unlock()
	if b == nil {
		delete(c.backoff, name)
		return
	}
	c.backoff[name] = *b
}

// register adopts the Node that came up for the NodeClaim: it gets the NodeClaim's labels and
// taints, loses the unregistered taint, and belongs to the NodeClaim from now on.
func (c *Controller) register(ctx context.Context, sn *state.Node) error {
	nc, now := sn.NodeClaim, c.clock.Now()
	if sn.Node == nil {
		launched := conditionTime(nc, karpv1.ConditionTypeLaunched)
		if now.Sub(launched) > c.opts.RegistrationTTL {
			return c.giveUp(ctx, sn, fmt.Sprintf("its node did not register within %s of launch", c.opts.RegistrationTTL))
		}
		return nil
	}
	// As Karpenter, say so when a node comes up without the taint that keeps pods off it until
	// it is adopted (its launch template or kubelet flags dropped it), and adopt it anyway.
	unregistered := karpv1.UnregisteredNoExecuteTaint()
	var events []journal.Event
	if _, synced := sn.Node.Labels[karpv1.NodeRegisteredLabelKey]; !synced && !slices.ContainsFunc(sn.Node.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&unregistered) }) {
		events = append(events, journal.Event{Object: nc, Type: corev1.EventTypeWarning, Reason: journal.ReasonUnregisteredTaintMissing,
			Message: fmt.Sprintf("Missing %s taint which prevents registration related race conditions on Karpenter-managed nodes", karpv1.UnregisteredTaintKey)})
	}
	if _, err := c.exec.UpdateNode(ctx, sn.Node.Name, "adopt for nodeclaim "+nc.Name+" (labels, taints, finalizer)", func(n *corev1.Node) error {
		adopt(n, nc)
		return nil
	}); err != nil {
		return err
	}
	if changed, err := c.setConditionOnce(ctx, nc.Name, karpv1.ConditionTypeRegistered, now, func(o *karpv1.NodeClaim) {
		o.Status.NodeName = sn.Node.Name
	}); err != nil || !changed {
		return err
	}
	capacityType, zone := sn.Placement()
	c.journal.Record(journal.Entry{Time: now, Kind: journal.KindRegistration, Reason: journal.ReasonRegistered, NodeClaims: []string{nc.Name}, CapacityType: capacityType, Zone: zone,
		Nodes: []string{sn.Node.Name}, NodePool: sn.NodePool(), Message: fmt.Sprintf("registered nodeclaim %s as node %s", nc.Name, sn.Node.Name), Events: events})
	return nil
}

// adopt gives a Node its NodeClaim's labels, taints (unless the node opts out), owner and
// finalizer, and removes the unregistered taint: what Karpenter does on registration.
func adopt(n *corev1.Node, nc *karpv1.NodeClaim) {
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	maps.Copy(n.Labels, nc.Labels)
	n.Labels[karpv1.NodeRegisteredLabelKey] = "true"
	unregistered := karpv1.UnregisteredNoExecuteTaint()
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&unregistered) })
	if n.Labels[karpv1.NodeDoNotSyncTaintsLabelKey] != "true" {
		for _, t := range slices.Concat(nc.Spec.Taints, nc.Spec.StartupTaints) {
			if !slices.ContainsFunc(n.Spec.Taints, func(h corev1.Taint) bool { return h.MatchTaint(&t) }) {
				n.Spec.Taints = append(n.Spec.Taints, t)
			}
		}
	}
	if !slices.ContainsFunc(n.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == nc.UID }) {
		n.OwnerReferences = append(n.OwnerReferences, metav1.OwnerReference{APIVersion: karpv1.SchemeGroupVersion.String(),
			Kind: karpv1.KindNodeClaim, Name: nc.Name, UID: nc.UID, BlockOwnerDeletion: ptr.To(true)})
	}
	if !slices.Contains(n.Finalizers, karpv1.TerminationFinalizer) {
		n.Finalizers = append(n.Finalizers, karpv1.TerminationFinalizer)
	}
}

// initialize marks the node ready for pods once it is Ready, its startup taints are gone and
// the extended resources its type promises (GPUs) are advertised.
func (c *Controller) initialize(ctx context.Context, sn *state.Node) error {
	nc, n, now := sn.NodeClaim, sn.Node, c.clock.Now()
	if n == nil {
		return nil
	}
	if why := notInitialized(n, nc); why != "" {
		return nil
	}
	if _, err := c.exec.UpdateNode(ctx, n.Name, "label "+karpv1.NodeInitializedLabelKey+"=true", func(o *corev1.Node) error {
		if o.Labels == nil {
			o.Labels = map[string]string{}
		}
		o.Labels[karpv1.NodeInitializedLabelKey] = "true"
		return nil
	}); err != nil {
		return err
	}
	if changed, err := c.setConditionOnce(ctx, nc.Name, karpv1.ConditionTypeInitialized, now, nil); err != nil || !changed {
		return err
	}
	e := journal.Entry{Time: now, Kind: journal.KindInitialization, Reason: journal.ReasonInitialized, NodeClaims: []string{nc.Name},
		Nodes: []string{n.Name}, NodePool: sn.NodePool(), Message: fmt.Sprintf("initialized nodeclaim %s (node %s is ready for pods)", nc.Name, n.Name)}
	for _, issue := range shapeIssues(n, nc) {
		e.Message += "; " + issue
		e.Events = append(e.Events, journal.Event{Object: nc, Type: corev1.EventTypeWarning, Reason: journal.ReasonFailedConsistencyCheck, Message: issue})
	}
	c.journal.Record(e)
	return nil
}

// shapeIssues compares, as Karpenter's consistency check does, the capacity the node reports
// with what the NodeClaim expected, for each resource the NodeClaim requests: less than 90% is an
// issue (a type whose capacity the provider overestimates, a kubelet misconfigured).
func shapeIssues(n *corev1.Node, nc *karpv1.NodeClaim) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(nc.Spec.Resources.Requests)) {
		requested, expected, found := nc.Spec.Resources.Requests[name], nc.Status.Capacity[name], n.Status.Capacity[name]
		if requested.IsZero() || expected.IsZero() {
			continue
		}
		if pct := found.AsApproximateFloat64() / expected.AsApproximateFloat64(); pct < 0.90 {
			out = append(out, fmt.Sprintf("expected %s of resource %s, but found %s (%0.1f%% of expected)", expected.String(), name, found.String(), pct*100))
		}
	}
	return out
}

// setConditionOnce sets a condition true (and applies also, if given) unless the NodeClaim, read
// fresh, has it true already: the informer may lag behind this controller's own writes, so a pass
// can repeat a step the previous one did. It reports whether it changed anything.
func (c *Controller) setConditionOnce(ctx context.Context, name, conditionType string, now time.Time, also func(*karpv1.NodeClaim)) (bool, error) {
	changed := false
	_, err := c.exec.UpdateNodeClaimStatus(ctx, name, "set "+conditionType+"=True", func(o *karpv1.NodeClaim) error {
		changed = !meta.IsStatusConditionTrue(o.Status.Conditions, conditionType)
		if !changed {
			return nil
		}
		if also != nil {
			also(o)
		}
		setCondition(o, conditionType, metav1.ConditionTrue, conditionType, "", now)
		return nil
	})
	return changed, err
}

// notInitialized says what the node still lacks, or "".
func notInitialized(n *corev1.Node, nc *karpv1.NodeClaim) string {
	ready := false
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			ready = cond.Status == corev1.ConditionTrue
		}
	}
	if !ready {
		return "not Ready"
	}
	for _, st := range nc.Spec.StartupTaints {
		if slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&st) }) {
			return "startup taint " + st.Key + " still present"
		}
	}
	for name, q := range nc.Status.Capacity {
		if isExtended(name) && !q.IsZero() {
			if have, ok := n.Status.Capacity[name]; !ok || have.IsZero() {
				return string(name) + " not advertised yet"
			}
		}
	}
	return ""
}

func isExtended(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage:
		return false
	}
	return true
}

// giveUp deletes a NodeClaim that never came up; its pods are planned again.
func (c *Controller) giveUp(ctx context.Context, sn *state.Node, why string) error {
	nc := sn.NodeClaim
	return c.deleteThen(ctx, nc, "("+why+")", journal.Entry{Time: c.clock.Now(), Kind: journal.KindLiveness, Reason: journal.ReasonLivenessTimeout,
		NodeClaims: []string{nc.Name}, NodePool: sn.NodePool(), Message: fmt.Sprintf("deleting nodeclaim %s: %s", nc.Name, why),
		Events: []journal.Event{{Object: nc, Type: corev1.EventTypeWarning, Reason: journal.ReasonLivenessTimeout, Message: "NodeClaim " + why}}})
}

// deleteThen deletes a NodeClaim through the executor and journals the decision once the
// deletion is done (or the NodeClaim was gone already): a dry run's executor journals what it
// would delete, and the decision, with its events and metrics, stays unrecorded.
func (c *Controller) deleteThen(ctx context.Context, nc *karpv1.NodeClaim, why string, decided journal.Entry) error {
	if err := ignoreNotFound(c.exec.DeleteNodeClaim(ctx, nc.Name, why)); err != nil {
		return err
	}
	c.journal.Record(decided)
	return nil
}

// expiredAt reports whether a NodeClaim has lived past its expireAfter.
func expiredAt(nc *karpv1.NodeClaim, now time.Time) (bool, time.Time) {
	d := nc.Spec.ExpireAfter
	if d.Never || d.Duration == nil {
		return false, time.Time{}
	}
	at := nc.CreationTimestamp.Add(*d.Duration)
	return !now.Before(at), at
}

// expire deletes a NodeClaim that lived past expireAfter, as Karpenter does: directly, without
// waiting for budgets (its termination grace period bounds the drain).
func (c *Controller) expire(ctx context.Context, sn *state.Node, at time.Time) error {
	nc := sn.NodeClaim
	capacityType, zone := sn.Placement()
	return c.deleteThen(ctx, nc, "(expired)", journal.Entry{Time: c.clock.Now(), Kind: journal.KindDisruption, Method: "Expiration", Reason: journal.ReasonExpired,
		CapacityType: capacityType, Zone: zone, NodeClaims: []string{nc.Name}, Nodes: nodeNames(sn), NodePool: sn.NodePool(), Pods: podNames(sn.Pods),
		Message: fmt.Sprintf("deleting expired nodeclaim %s (expireAfter %s reached at %s)", nc.Name, nc.Spec.ExpireAfter.String(), at.UTC().Format(time.RFC3339)),
		Events:  []journal.Event{{Object: nc, Type: corev1.EventTypeNormal, Reason: journal.ReasonDisruptionTerminating, Message: "Disrupting NodeClaim: Expired"}}})
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func conditionTrue(nc *karpv1.NodeClaim, t string) bool {
	return meta.IsStatusConditionTrue(nc.Status.Conditions, t)
}

func conditionTime(nc *karpv1.NodeClaim, t string) time.Time {
	if cond := meta.FindStatusCondition(nc.Status.Conditions, t); cond != nil {
		return cond.LastTransitionTime.Time
	}
	return nc.CreationTimestamp.Time
}

func setCondition(nc *karpv1.NodeClaim, t string, status metav1.ConditionStatus, reason, message string, now time.Time) {
	if reason == "" {
		reason = t
	}
	meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(now), ObservedGeneration: nc.Generation})
	if karpv1.IsNodeClaimReadyDependent(t) {
		meta.SetStatusCondition(&nc.Status.Conditions, karpv1.NodeClaimReady(nc.Status.Conditions, nc.Generation, now))
	}
}

func nodeNames(sn *state.Node) []string {
	if sn.Node == nil {
		return nil
	}
	return []string{sn.Node.Name}
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}
