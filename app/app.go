package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/aws"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/kube"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
	"github.com/nodepilot/nodepilot/kube/metricsapi"
	"github.com/nodepilot/nodepilot/metrics"
)

// Options say which cluster and cloud to work on, and how.
type Options struct {
	// REST reaches the cluster; when nil, Kubeconfig and Context (or the in-cluster config) do.
	REST                *rest.Config
	Kubeconfig, Context string
	// ClusterName tags instances and names the discovery tag EC2NodeClasses usually select by.
	ClusterName string
	AWS         aws.ConfigOptions
	Endpoints   aws.Endpoints
	// QueueName is the SQS interruption queue ("" for none).
	QueueName string
	// ReadOnly writes nothing at all: no autoscaler, no status, no action.
	ReadOnly   bool
	Autoscaler autoscaler.Options
	Clock      clock.WithTicker
	Logger     *slog.Logger
	// Registry receives the metrics (nil: none).
	Registry prometheus.Registerer
	// JournalSize is how many journal entries stay in memory.
	JournalSize int
	// Usage reads metrics.k8s.io for the console's usage columns and right-sizing.
	Usage bool
}

// App is nodepilot assembled over one cluster and one cloud.
type App struct {
	opts    Options
	REST    *rest.Config
	Clients *kube.Clients
	Cluster *state.Cluster
	Journal *journal.Journal
	// Executor performs every write: the autoscaler's, the provider's own and the console's.
	Executor *executor.Executor
	// Provider is nil when NoProvider says why, in a few words: read-only without a cluster
	// name or AWS.
	Provider   *aws.Provider
	NoProvider string
	Autoscaler *autoscaler.Autoscaler
	// Usage polls metrics.k8s.io when Options.Usage; nil otherwise.
	Usage             *metricsapi.Poller
	KubernetesVersion string
	closeWriter       func()
}

// mode is the executor's mode for the options: read-only, dry-run or live.
func (o Options) mode() executor.Mode {
	switch {
	case o.ReadOnly:
		return executor.ReadOnly
	case o.Autoscaler.DryRun:
		return executor.DryRun
	}
	return executor.Live
}

// New connects to the cluster and the cloud and builds every part, without starting any.
func New(ctx context.Context, opts Options) (*App, error) {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.JournalSize == 0 {
		opts.JournalSize = 10000
	}
	// The kubeconfig first: the default cluster name comes from its context, so an unreadable
	// one is the error to fix.
	cfg := opts.REST
	if cfg == nil {
		var err error
		if cfg, err = kube.RESTConfig(opts.Kubeconfig, opts.Context); err != nil {
			return nil, err
		}
	}
	if opts.ClusterName == "" && !opts.ReadOnly {
		return nil, fmt.Errorf("no cluster name: set --cluster-name, or use the kubeconfig context of an EKS cluster (the name tags instances and usually the subnets and security groups to discover)")
	}
	mode := opts.mode()
	if mode != executor.Live {
		// Below the executor, the clients themselves refuse every write.
		cfg = kube.RefuseWrites(cfg, mode.String())
	}
	clients, err := kube.NewClients(cfg)
	if err != nil {
		return nil, err
	}
	version, err := clients.Kube.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("asking %s for its version: %w", cfg.Host, err)
	}
	// The EC2 provider's labels, for the autoscaler and the console's simulations alike.
	wellKnown := awsv1.WellKnownLabels().UnsortedList()
	opts.Autoscaler.Provisioning.WellKnownLabels, opts.Autoscaler.Disruption.WellKnownLabels = wellKnown, wellKnown
	a := &App{opts: opts, REST: cfg, Clients: clients, Cluster: state.NewCluster(opts.Clock),
		KubernetesVersion: version.Major + "." + strings.TrimSuffix(version.Minor, "+")}

	if err := a.newProvider(ctx, cfg.Host); err != nil {
		return nil, err
	}
	if opts.Usage {
		mc, err := metricsclient.NewForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("metrics.k8s.io client: %w", err)
		}
		a.Usage = metricsapi.New(mc, metricsapi.Options{Clock: opts.Clock})
	}

	// Only a live run has a cluster writer at all.
	var writer state.APIWriter
	a.closeWriter = func() {}
	if mode == executor.Live {
		w, err := kube.NewWriter(cfg)
		if err != nil {
			return nil, err
		}
		writer, a.closeWriter = w, w.Close
	}
	events := executor.Events(mode, writer)
	sinks := []journal.Sink{journal.LogSink{Logger: opts.Logger}, journal.EventSink{Recorder: events}}
	if opts.Registry != nil {
		sinks = append(sinks, metrics.NewSink(opts.Registry))
		opts.Registry.MustRegister(metrics.NewCollector(a.Cluster, a.InstanceTypes, opts.Clock, karpv1.WellKnownLabels().Union(awsv1.WellKnownLabels()).UnsortedList()))
	}
	a.Journal = journal.New(opts.JournalSize, sinks...)
	cloud := a.cloud()
	if opts.Registry != nil && cloud != nil {
		cloud = metrics.Decorate(cloud, opts.Registry)
	}
	a.Executor = executor.New(mode, writer, cloud, a.Journal, opts.Clock)

	if !opts.ReadOnly {
		var interruptions cloudprovider.Interruptions
		switch {
		case opts.QueueName != "" && mode == executor.DryRun:
			// Receiving a message hides it from every other reader for its visibility timeout:
			// a dry run beside a live controller would delay that controller's interruptions.
			opts.Logger.Warn("dry run: the interruption queue is not read, so that a live controller reading it misses nothing", "queue", opts.QueueName)
		case opts.QueueName != "":
			interruptions = a.Provider.Interruptions(opts.QueueName)
		}
		a.Autoscaler = autoscaler.New(a.Cluster, a.Executor, cloud, interruptions, a.Journal, opts.Clock, opts.Autoscaler)
	}
	return a, nil
}

// newProvider builds the AWS provider. Read-only, it does without one when there is no cluster
// name or no AWS configuration to be had: the console shows the cluster, without prices or
// simulations, and says why (NoProvider).
func (a *App) newProvider(ctx context.Context, host string) error {
	opts := a.opts
	mode := opts.mode()
	if opts.ReadOnly && opts.ClusterName == "" {
		a.NoProvider = "no cluster name"
		opts.Logger.Warn("read-only without AWS: no prices, no explain", "reason", "no cluster name: set --cluster-name, or use an EKS cluster's kubeconfig context")
		return nil
	}
	awsCfg, err := aws.LoadConfig(ctx, opts.AWS)
	if err != nil {
		switch {
		case opts.ReadOnly && errors.Is(err, aws.ErrNoRegion):
			a.NoProvider = "no AWS region"
		case opts.ReadOnly && errors.Is(err, aws.ErrNoCredentials):
			a.NoProvider = "no AWS credentials"
		default:
			return err
		}
		opts.Logger.Warn("read-only without AWS: no prices, no explain", "reason", err)
		return nil
	}
	if mode != executor.Live {
		awsCfg = aws.RefuseWrites(awsCfg, mode.String())
	}
	a.Provider, err = aws.New(aws.NewClients(awsCfg, opts.Endpoints, opts.Logger), aws.Options{
		ClusterName: opts.ClusterName, Region: awsCfg.Region, KubernetesVersion: a.KubernetesVersion, ClusterEndpoint: host,
		NodeClass: func(_ context.Context, name string) (*awsv1.EC2NodeClass, error) {
			nc, _ := a.Cluster.NodeClass(name).(*awsv1.EC2NodeClass)
			return nc, nil
		},
		Clock: opts.Clock, Log: opts.Logger,
		// The executor needs the provider, so it is built after; the provider reaches it only
		// once running.
		Act: func(ctx context.Context, action executor.Action, perform func(context.Context) error) error {
			return a.Executor.Do(ctx, action, perform)
		},
		Measure: func(m journal.Measurement) { a.Journal.Measure(m) },
	})
	return err
}

// Ready says why the App is not ready to act yet, or nil: the informers must have synced (acting
// on a partial view could launch capacity that exists) and AWS must have answered once (so
// instance types and prices are AWS's, and the credentials work).
func (a *App) Ready() error {
	if !a.Cluster.Snapshot().Synced {
		return errors.New("the cluster state has not synced yet")
	}
	if a.Provider != nil && !a.Provider.Answered() {
		return errors.New("AWS has not answered yet (the log names the failing call)")
	}
	return nil
}

// cloud is the provider as the engine sees it: a nil interface, not a nil pointer, without one.
func (a *App) cloud() cloudprovider.CloudProvider {
	if a.Provider == nil {
		return nil
	}
	return a.Provider
}

// InstanceTypes lists the instance types a NodePool can launch, as the provider last built
// them, or nil: the console and the metrics read them without waiting on AWS.
func (a *App) InstanceTypes(nodePool string) []*cloudprovider.InstanceType {
	np := a.Cluster.NodePool(nodePool)
	if np == nil || a.Provider == nil {
		return nil
	}
	return a.Provider.KnownInstanceTypes(np)
}

// InstanceType finds an instance type a NodePool can launch (for pricing its nodes), or nil.
func (a *App) InstanceType(nodePool, name string) *cloudprovider.InstanceType {
	for _, it := range a.InstanceTypes(nodePool) {
		if it.Name == name {
			return it
		}
	}
	return nil
}

// Run runs the informers, the provider's refresh, the EC2NodeClass status and the autoscaler
// until ctx ends. It fails when the informers cannot start (missing CRDs, permissions).
func (a *App) Run(ctx context.Context) error {
	defer a.closeWriter()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	run := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil && ctx.Err() == nil {
				select {
				case errs <- err:
				default:
				}
				cancel()
			}
		}()
	}
	run(func() error { return kube.RunInformers(ctx, a.REST, a.Cluster) })
	if a.Provider != nil {
		run(func() error { return a.Provider.Run(ctx) })
	}
	if a.Usage != nil {
		run(func() error { a.Usage.Run(ctx); return nil })
	}
	switch {
	case a.Autoscaler != nil:
		run(func() error { a.nodeClassStatus(ctx); return nil })
		run(func() error { a.Autoscaler.Run(ctx); return nil })
	case a.Provider != nil:
		run(func() error { a.watchInstanceTypes(ctx); return nil })
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// watchInstanceTypes builds every NodePool's instance types once the cluster state has synced,
// then every 30 seconds, when no autoscaler does (read-only, or watching another controller):
// the console and the metrics price nodes with them. It only reads from AWS.
func (a *App) watchInstanceTypes(ctx context.Context) {
	// Changes only wake it until the state syncs; the ticker does after that.
	changes := a.Cluster.Subscribe()
	tick := a.opts.Clock.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		if snap := a.Cluster.Snapshot(); snap.Synced {
			changes = nil
			for _, np := range snap.NodePools {
				if _, err := a.Provider.InstanceTypes(ctx, np); err != nil && ctx.Err() == nil {
					a.opts.Logger.Debug("building a nodepool's instance types", "nodepool", np.Name, "error", err)
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-changes:
		case <-tick.C():
		}
	}
}

// nodeClassStatus keeps every EC2NodeClass's status (subnets, security groups, AMIs, instance
// profile, readiness) as the provider resolves it, every 30 seconds and on change.
func (a *App) nodeClassStatus(ctx context.Context) {
	changes := a.Cluster.Subscribe()
	tick := a.opts.Clock.NewTicker(30 * time.Second)
	defer tick.Stop()
	waiting := map[string]string{}         // per deleted EC2NodeClass, what it was last journaled waiting on
	told := map[string]map[string]string{} // per EC2NodeClass and condition, what was journaled of it
	for {
		snap := a.Cluster.Snapshot()
		// What was said of EC2NodeClasses released and gone is forgotten.
		maps.DeleteFunc(waiting, func(name, _ string) bool { return snap.NodeClass(name) == nil })
		maps.DeleteFunc(told, func(name string, _ map[string]string) bool { return snap.NodeClass(name) == nil })
		for _, nc := range aws.NodeClasses(snap) {
			if a.terminateNodeClass(ctx, snap, nc, waiting) {
				continue // being deleted: its status no longer matters
			}
			a.annotateNodeClassHash(ctx, nc)
			a.rehashNodeClaims(ctx, snap, nc)
			status := a.Provider.NodeClassStatus(ctx, nc)
			keepTransitionTimes(&status, nc.Status)
			a.journalConditions(nc.Name, status.Conditions, told)
			if equality.Semantic.DeepEqual(status, nc.Status) {
				continue
			}
			if err := a.Executor.UpdateNodeClassStatus(ctx, nc.Name, state.AsNodeClass(func(o *awsv1.EC2NodeClass) error {
				o.Status = status
				return nil
			})); err != nil && ctx.Err() == nil && !executor.NotPerformed(err) {
				a.opts.Logger.Warn("updating ec2nodeclass status", "ec2nodeclass", nc.Name, "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-changes:
			// A burst of changes should not resolve selectors in a loop: wait a moment.
			select {
			case <-ctx.Done():
				return
			case <-a.opts.Clock.After(2 * time.Second):
			}
		case <-tick.C():
		}
	}
}

// journalConditions says, once per change, each condition of an EC2NodeClass that does not
// hold, with why: what the node class cannot do (capacity reservations it does not launch into,
// say) is in the journal, not only in its status. told keeps, per class and condition, what was
// said last.
func (a *App) journalConditions(name string, conditions []metav1.Condition, told map[string]map[string]string) {
	if told[name] == nil {
		told[name] = map[string]string{}
	}
	for _, c := range conditions {
		said := fmt.Sprintf("%s is %s (%s): %s", c.Type, c.Status, c.Reason, c.Message)
		if c.Status == metav1.ConditionTrue || told[name][c.Type] == said {
			told[name][c.Type] = said
			continue
		}
		told[name][c.Type] = said
		a.Journal.Record(journal.Entry{Time: a.opts.Clock.Now(), Kind: journal.KindNodeClass, Reason: journal.Reason(c.Reason), DryRun: a.Executor.DryRun(),
			Message: fmt.Sprintf("ec2nodeclass %s: %s", name, said)})
	}
}

// terminateNodeClass handles an EC2NodeClass's termination finalizer, as Karpenter does: it
// puts the finalizer on every EC2NodeClass, and on one being deleted waits for the NodeClaims
// that use it to be gone, then deletes the instance profile made for its role and releases it.
// It reports whether nc is being deleted. While it waits, it journals which NodeClaims hold it,
// as Karpenter's event says, each time that changes (waiting keeps what was said last).
func (a *App) terminateNodeClass(ctx context.Context, snap *state.Snapshot, nc *awsv1.EC2NodeClass, waiting map[string]string) bool {
	step, holding := terminationStep(nc, snap)
	switch step {
	case addFinalizer:
		a.updateFinalizers(ctx, nc, "add finalizer "+awsv1.TerminationFinalizer, func(f []string) []string { return append(f, awsv1.TerminationFinalizer) })
	case waitForNodeClaims:
		msg := "Waiting on NodeClaim termination for " + prettyList(holding, 5)
		if waiting[nc.Name] != msg {
			waiting[nc.Name] = msg
			a.Journal.Record(journal.Entry{Time: a.opts.Clock.Now(), Kind: journal.KindTermination, Reason: journal.ReasonWaitingOnNodeClaimTermination,
				NodeClaims: holding, Message: fmt.Sprintf("ec2nodeclass %s: %s", nc.Name, msg), DryRun: a.Executor.DryRun(),
				Events: []journal.Event{{Object: nc, Type: corev1.EventTypeNormal, Reason: journal.ReasonWaitingOnNodeClaimTermination, Message: msg}}})
		}
		return true
	case releaseNodeClass:
		if err := a.Provider.DeleteInstanceProfile(ctx, nc); err != nil {
			if ctx.Err() == nil && !executor.NotPerformed(err) {
				a.opts.Logger.Warn("deleting the instance profile of a deleted ec2nodeclass", "ec2nodeclass", nc.Name, "error", err)
			}
			return true
		}
		a.updateFinalizers(ctx, nc, "remove finalizer "+awsv1.TerminationFinalizer, func(f []string) []string {
			return slices.DeleteFunc(f, func(s string) bool { return s == awsv1.TerminationFinalizer })
		})
		a.Journal.Measure(journal.Measurement{Measure: journal.MeasureNodeClassGone, NodeClass: nc.Name})
	}
	return nc.DeletionTimestamp != nil
}

func (a *App) updateFinalizers(ctx context.Context, nc *awsv1.EC2NodeClass, what string, change func([]string) []string) {
	err := a.Executor.UpdateNodeClass(ctx, nc.Name, what, state.AsNodeClass(func(o *awsv1.EC2NodeClass) error {
		o.Finalizers = change(o.Finalizers)
		return nil
	}))
	if err != nil && ctx.Err() == nil && !executor.NotPerformed(err) {
		a.opts.Logger.Warn("updating ec2nodeclass finalizers", "ec2nodeclass", nc.Name, "error", err)
	}
}

// annotateNodeClassHash writes nc's hash and hash version on it when they changed, as Karpenter's
// hash controller does, for the tools (and the Karpenter) that read them there.
func (a *App) annotateNodeClassHash(ctx context.Context, nc *awsv1.EC2NodeClass) {
	if nc.Annotations[awsv1.AnnotationEC2NodeClassHash] == a.Provider.NodeClassHash(nc) && nc.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] == awsv1.EC2NodeClassHashVersion {
		return
	}
	err := a.Executor.UpdateNodeClass(ctx, nc.Name, "annotate hash", state.AsNodeClass(func(o *awsv1.EC2NodeClass) error {
		metav1.SetMetaDataAnnotation(&o.ObjectMeta, awsv1.AnnotationEC2NodeClassHash, a.Provider.NodeClassHash(o))
		metav1.SetMetaDataAnnotation(&o.ObjectMeta, awsv1.AnnotationEC2NodeClassHashVersion, awsv1.EC2NodeClassHashVersion)
		return nil
	}))
	if err != nil && ctx.Err() == nil && !executor.NotPerformed(err) {
		a.opts.Logger.Warn("annotating the ec2nodeclass hash", "ec2nodeclass", nc.Name, "error", err)
	}
}

// rehashNodeClaims gives the NodeClaims of nc hashed under another scheme (an older nodepilot's,
// or none) nc's current hash and Karpenter's scheme (karpv1.Rehash).
func (a *App) rehashNodeClaims(ctx context.Context, snap *state.Snapshot, nc *awsv1.EC2NodeClass) {
	for _, name := range staleNodeClassHashes(snap, nc) {
		_, err := a.Executor.UpdateNodeClaim(ctx, name, "re-hash under ec2nodeclass-hash-version "+awsv1.EC2NodeClassHashVersion, func(o *karpv1.NodeClaim) error {
			karpv1.Rehash(o, awsv1.AnnotationEC2NodeClassHash, a.Provider.NodeClassHash(nc), awsv1.AnnotationEC2NodeClassHashVersion, awsv1.EC2NodeClassHashVersion)
			return nil
		})
		if err != nil && ctx.Err() == nil && !executor.NotPerformed(err) && !apierrors.IsNotFound(err) {
			a.opts.Logger.Warn("re-hashing a nodeclaim", "nodeclaim", name, "error", err)
		}
	}
}

// staleNodeClassHashes names the launched NodeClaims of nc whose EC2NodeClass hash is of
// another scheme.
func staleNodeClassHashes(snap *state.Snapshot, nc *awsv1.EC2NodeClass) []string {
	var out []string
	for _, claim := range snap.NodeClaims {
		if !uses(claim, nc) || claim.DeletionTimestamp != nil {
			continue
		}
		// Launch writes the hash: one not launched yet is not stale.
		launched := meta.IsStatusConditionTrue(claim.Status.Conditions, karpv1.ConditionTypeLaunched)
		if launched && claim.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] != awsv1.EC2NodeClassHashVersion {
			out = append(out, claim.Name)
		}
	}
	return out
}

// finalizerStep is what an EC2NodeClass's termination finalizer calls for now.
type finalizerStep int

const (
	nothingToDo finalizerStep = iota
	addFinalizer
	waitForNodeClaims
	releaseNodeClass
)

// terminationStep decides the finalizer's step: add it to a live EC2NodeClass without it; on
// one being deleted, wait while NodeClaims (deleting or not) still use it, naming them, then
// release it.
func terminationStep(nc *awsv1.EC2NodeClass, snap *state.Snapshot) (finalizerStep, []string) {
	has := slices.Contains(nc.Finalizers, awsv1.TerminationFinalizer)
	switch {
	case nc.DeletionTimestamp == nil && !has:
		return addFinalizer, nil
	case nc.DeletionTimestamp == nil || !has:
		return nothingToDo, nil
	}
	var holding []string
	for _, claim := range snap.NodeClaims {
		if uses(claim, nc) {
			holding = append(holding, claim.Name)
		}
	}
	if len(holding) > 0 {
		return waitForNodeClaims, holding
	}
	return releaseNodeClass, nil
}

// prettyList names the first n items and counts the rest.
func prettyList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d other(s)", strings.Join(items[:n], ", "), len(items)-n)
}

// uses tells whether a NodeClaim launches with nc.
func uses(claim *karpv1.NodeClaim, nc *awsv1.EC2NodeClass) bool {
	ref := claim.Spec.NodeClassRef
	return ref != nil && ref.Name == nc.Name && ref.Kind == awsv1.KindEC2NodeClass && ref.Group == awsv1.Group
}

// keepTransitionTimes keeps a condition's time when nothing about it changed, so that an
// unchanged status compares equal and is not written again.
func keepTransitionTimes(next *awsv1.EC2NodeClassStatus, prev awsv1.EC2NodeClassStatus) {
	for i := range next.Conditions {
		for _, p := range prev.Conditions {
			c := &next.Conditions[i]
			if c.Type == p.Type && c.Status == p.Status && c.Reason == p.Reason && c.Message == p.Message {
				c.LastTransitionTime = p.LastTransitionTime
				c.ObservedGeneration = p.ObservedGeneration
			}
		}
	}
}
