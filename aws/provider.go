package aws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
)

// Defaults of the Options durations.
const (
	// DefaultSelectorTTL is how long resolved subnets, security groups and AMIs are reused.
	DefaultSelectorTTL = time.Minute
	// DefaultGCGracePeriod is how long after launch an instance no NodeClaim claims is left
	// alone, so that a launch in flight is not mistaken for a leak.
	DefaultGCGracePeriod = 30 * time.Second
	// DefaultTerminateBatchWindow is how long TerminateInstances waits to batch concurrent
	// deletions into one call.
	DefaultTerminateBatchWindow = 100 * time.Millisecond
	// profileTTL is how long an instance profile known to hold its role is trusted.
	profileTTL = 15 * time.Minute
	// templateTTL is how long a launch template known to exist is trusted.
	templateTTL = time.Hour
)

// ProviderName is the name the provider reports, and the scheme of its provider IDs.
const ProviderName = "aws"

// NodeClassFunc returns the EC2NodeClass of a name, or (nil, nil) when there is none. The kube
// layer implements it over its informer cache.
type NodeClassFunc func(ctx context.Context, name string) (*awsv1.EC2NodeClass, error)

// Options configure a Provider. ClusterName, Region, NodeClass and Act are required.
type Options struct {
	// ClusterName tags every instance (kubernetes.io/cluster/NAME=owned) and names the cluster
	// in user data.
	ClusterName string
	// Region is the AWS region, as the SDK configuration resolved it.
	Region string
	// KubernetesVersion ("1.31") selects the AMI alias parameters.
	KubernetesVersion string
	// ClusterEndpoint, ClusterCABundle (base64 PEM) and ClusterServiceCIDR go into user data.
	ClusterEndpoint    string
	ClusterCABundle    string
	ClusterServiceCIDR string
	// NodeClass looks EC2NodeClasses up by name.
	NodeClass NodeClassFunc
	// Clock is the time source; the real clock when nil.
	Clock clock.WithTicker
	// Log receives warnings (failed refreshes, unparseable queue messages); slog.Default if nil.
	Log *slog.Logger
	// RefreshPeriod (12 h) and RefreshRetry (1 min): see Run.
	RefreshPeriod time.Duration
	RefreshRetry  time.Duration
	// UnavailableFor is how long an offering without capacity is skipped (3 min).
	UnavailableFor time.Duration
	// SelectorTTL is how long subnets, security groups and AMIs are reused (1 min).
	SelectorTTL time.Duration
	// GCGracePeriod: see CollectGarbage (30 s).
	GCGracePeriod time.Duration
	// TerminateBatchWindow: see Delete (100 ms).
	TerminateBatchWindow time.Duration
	// Act performs the provider's own writes outside Create and Delete (instance profiles,
	// interruption queue deletions): executor.Executor.Do, so that they are journaled and held
	// back in a dry run like every other write. Required.
	Act func(ctx context.Context, a executor.Action, perform func(context.Context) error) error
	// Measure receives the provider's figures for metrics (launch failures, user data sizes,
	// batches): the journal's Measure. Optional.
	Measure func(journal.Measurement)
}

func (o *Options) setDefaults() {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Measure == nil {
		o.Measure = func(journal.Measurement) {}
	}
	defaultDuration(&o.RefreshPeriod, DefaultRefreshPeriod)
	defaultDuration(&o.RefreshRetry, DefaultRefreshRetry)
	defaultDuration(&o.UnavailableFor, DefaultUnavailableFor)
	defaultDuration(&o.SelectorTTL, DefaultSelectorTTL)
	defaultDuration(&o.GCGracePeriod, DefaultGCGracePeriod)
	defaultDuration(&o.TerminateBatchWindow, DefaultTerminateBatchWindow)
}

func defaultDuration(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

// Provider is the engine's CloudProvider for EC2.
type Provider struct {
	clients Clients
	opts    Options
	clock   clock.WithTicker
	log     *slog.Logger

	data        *ec2Data
	unavailable *unavailableOfferings
	types       *builtTypes
	inflight    inflightIPs
	terminator  *terminator

	subnetCache        *ttlCache[[]subnet]
	securityGroupCache *ttlCache[[]securityGroup]
	amiCache           *ttlCache[[]ami]
	profileCache       *ttlCache[string]
	profileMu          sync.Mutex // serialises instance profile creation
	templateCache      *ttlCache[struct{}]
	driftList          *ttlCache[[]instance] // the cluster's instances, for drift checks
	answered           atomic.Bool           // a refresh has succeeded once
}

var _ cloudprovider.CloudProvider = (*Provider)(nil)

// New returns a provider over clients. It reads nothing from AWS until first used; call Run
// to keep instance types and prices fresh in the background.
func New(clients Clients, opts Options) (*Provider, error) {
	switch {
	case opts.ClusterName == "":
		return nil, errors.New("aws provider: the cluster name is required")
	case opts.Region == "":
		return nil, ErrNoRegion
	case opts.NodeClass == nil:
		return nil, errors.New("aws provider: a NodeClass lookup is required")
	case opts.Act == nil:
		return nil, errors.New("aws provider: an executor (Act) is required for its writes")
	case clients.EC2 == nil || clients.SQS == nil || clients.SSM == nil || clients.Pricing == nil || clients.IAM == nil:
		return nil, errors.New("aws provider: every client (EC2, SQS, SSM, Pricing, IAM) is required")
	}
	opts.setDefaults()
	cat, err := catalog.Load()
	if err != nil {
		return nil, fmt.Errorf("aws provider: loading the embedded catalog: %w", err)
	}
	p := &Provider{
		clients:            clients,
		opts:               opts,
		clock:              opts.Clock,
		log:                opts.Log,
		data:               newEC2Data(cat),
		unavailable:        newUnavailableOfferings(opts.Clock, opts.UnavailableFor),
		types:              &builtTypes{entries: map[string][]*cloudprovider.InstanceType{}, latest: map[string][]*cloudprovider.InstanceType{}},
		subnetCache:        newTTLCache[[]subnet](opts.Clock, opts.SelectorTTL),
		securityGroupCache: newTTLCache[[]securityGroup](opts.Clock, opts.SelectorTTL),
		amiCache:           newTTLCache[[]ami](opts.Clock, opts.SelectorTTL),
		profileCache:       newTTLCache[string](opts.Clock, profileTTL),
		driftList:          newTTLCache[[]instance](opts.Clock, DriftListTTL),
		templateCache:      newTTLCache[struct{}](opts.Clock, templateTTL),
	}
	p.terminator = newTerminator(clients.EC2, opts.TerminateBatchWindow, opts.Measure)
	return p, nil
}

// Name returns "aws".
func (p *Provider) Name() string { return ProviderName }

// NodeClassKind implements cloudprovider.CloudProvider: EC2NodeClass of karpenter.k8s.aws.
func (p *Provider) NodeClassKind() schema.GroupKind { return awsv1.EC2NodeClassGroupKind() }

// clusterTagKey is the tag every instance of the cluster carries, with the value "owned".
func (p *Provider) clusterTagKey() string { return "kubernetes.io/cluster/" + p.opts.ClusterName }

// nodeClassOf returns the EC2NodeClass a NodeClaim or NodePool refers to. A missing or deleted
// one is a *cloudprovider.NodeClassNotReadyError.
func (p *Provider) nodeClassOf(ctx context.Context, ref *karpv1.NodeClassReference) (*awsv1.EC2NodeClass, error) {
	if ref == nil || ref.Name == "" {
		return nil, &cloudprovider.NodeClassNotReadyError{Reason: "no nodeClassRef"}
	}
	if (ref.Group != "" && ref.Group != awsv1.Group) || (ref.Kind != "" && ref.Kind != "EC2NodeClass") {
		return nil, &cloudprovider.NodeClassNotReadyError{NodeClass: ref.Name,
			Reason: fmt.Sprintf("nodeClassRef is %s/%s; the aws provider handles %s/EC2NodeClass", ref.Group, ref.Kind, awsv1.Group)}
	}
	nc, err := p.opts.NodeClass(ctx, ref.Name)
	if err != nil {
		return nil, fmt.Errorf("getting ec2nodeclass %q: %w", ref.Name, err)
	}
	if nc == nil {
		return nil, &cloudprovider.NodeClassNotReadyError{NodeClass: ref.Name, Reason: "it does not exist"}
	}
	if nc.DeletionTimestamp != nil {
		return nil, &cloudprovider.NodeClassNotReadyError{NodeClass: ref.Name, Reason: "it is being deleted"}
	}
	return nc, nil
}

// resolved is what an EC2NodeClass's selectors and role resolve to.
type resolved struct {
	subnets         []subnet
	securityGroups  []securityGroup
	amis            []ami
	instanceProfile string
}

// resolve resolves the selectors a launch needs (from the caches when fresh). A selector that
// selects nothing makes the node class not ready.
func (p *Provider) resolve(ctx context.Context, nc *awsv1.EC2NodeClass, withProfile bool) (*resolved, error) {
	var r resolved
	var err error
	if r.subnets, err = p.subnets(ctx, nc); err != nil {
		return nil, err
	}
	if len(r.subnets) == 0 {
		return nil, &cloudprovider.NodeClassNotReadyError{NodeClass: nc.Name, Reason: "subnetSelectorTerms select no subnet"}
	}
	if r.amis, err = p.amis(ctx, nc); err != nil {
		return nil, &cloudprovider.NodeClassNotReadyError{NodeClass: nc.Name, Reason: err.Error()}
	}
	if !withProfile {
		return &r, nil
	}
	if r.securityGroups, err = p.securityGroups(ctx, nc); err != nil {
		return nil, err
	}
	if len(r.securityGroups) == 0 {
		return nil, &cloudprovider.NodeClassNotReadyError{NodeClass: nc.Name, Reason: "securityGroupSelectorTerms select no security group"}
	}
	if r.instanceProfile, err = p.instanceProfile(ctx, nc); err != nil {
		return nil, err
	}
	return &r, nil
}

// InstanceTypes returns what the NodePool's EC2NodeClass can launch: every instance type with
// an AMI for its architecture, offered in the zones of the node class's subnets, with prices and
// the Available flags of recent capacity errors. Data that is due is refreshed first; a failed
// refresh keeps the last good data.
func (p *Provider) InstanceTypes(ctx context.Context, nodePool *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	nc, err := p.nodeClassOf(ctx, nodePool.Spec.Template.Spec.NodeClassRef)
	if err != nil {
		return nil, fmt.Errorf("nodepool %q: %w", nodePool.Name, err)
	}
	_ = p.refreshDue(ctx) // failures are in Status; the last good data serves meanwhile
	r, err := p.resolve(ctx, nc, false)
	if err != nil {
		return nil, fmt.Errorf("nodepool %q: %w", nodePool.Name, err)
	}
	types, err := p.instanceTypesFor(ctx, nc, r)
	if err != nil {
		return nil, fmt.Errorf("nodepool %q: %w", nodePool.Name, err)
	}
	return types, nil
}

// instanceTypesFor builds (or reuses) the instance types of a node class. It reads AWS only
// when no instance type was ever read.
func (p *Provider) instanceTypesFor(ctx context.Context, nc *awsv1.EC2NodeClass, r *resolved) ([]*cloudprovider.InstanceType, error) {
	snap := p.data.snapshot()
	if len(snap.infos) == 0 {
		if err := p.refreshDue(ctx); err != nil && len(p.data.snapshot().infos) == 0 {
			return nil, fmt.Errorf("no instance types known: %w", err)
		}
		snap = p.data.snapshot()
		if len(snap.infos) == 0 {
			return nil, fmt.Errorf("no instance types known: %s", p.data.statusOf(dataInstanceTypes).Err)
		}
	}
	q := typeQuery{opts: instancetype.OptionsFor(nc), zones: zonesOf(r.subnets), arches: arches(r.amis), needs: instancetype.NeedsOf(nc)}
	unavailable, gen := p.unavailable.snapshot()
	key := cacheKey(q.opts, q.zones, q.arches, q.needs) + "/" + strconv.FormatUint(snap.generation, 10) + "/" + strconv.FormatUint(gen, 10)
	return p.types.get(nc.Name, key, func() []*cloudprovider.InstanceType { return buildInstanceTypes(snap, q, unavailable) }), nil
}

// KnownInstanceTypes returns the instance types last built for a NodePool's EC2NodeClass, or nil,
// without calling AWS: for readers that must not wait on the cloud (a metrics scrape, the
// console). The loops ask InstanceTypes every pass, which keeps them fresh.
func (p *Provider) KnownInstanceTypes(nodePool *karpv1.NodePool) []*cloudprovider.InstanceType {
	ref := nodePool.Spec.Template.Spec.NodeClassRef
	if ref == nil {
		return nil
	}
	return p.types.known(ref.Name)
}

// builtTypes keeps the instance types built per node class view and data generation: building
// all of them takes milliseconds, and the engine asks often.
type builtTypes struct {
	mu      sync.Mutex
	entries map[string][]*cloudprovider.InstanceType
	// latest are the types last handed out per EC2NodeClass name.
	latest map[string][]*cloudprovider.InstanceType
}

// maxBuiltTypes bounds the entries kept; old generations are dropped wholesale past it.
const maxBuiltTypes = 16

func (b *builtTypes) get(class, key string, build func() []*cloudprovider.InstanceType) []*cloudprovider.InstanceType {
	b.mu.Lock()
	defer b.mu.Unlock()
	types, ok := b.entries[key]
	if !ok {
		types = build()
		if len(b.entries) >= maxBuiltTypes {
			clear(b.entries)
		}
		b.entries[key] = types
	}
	b.latest[class] = types
	return types
}

func (b *builtTypes) known(class string) []*cloudprovider.InstanceType {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.latest[class]
}
