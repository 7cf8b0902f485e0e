package enginetest

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// InstanceState is the state of a Cloud's instance.
type InstanceState string

// Instance states. Termination is immediate: there is no shutting-down state.
const (
	InstanceRunning    InstanceState = "running"
	InstanceTerminated InstanceState = "terminated"
)

// Instance is a machine the Cloud launched. Instances() and Instance() return copies.
type Instance struct {
	// ID is "i-N", N counting launches from 1.
	ID         string
	ProviderID string
	// NodeClaim is the name of the NodeClaim it was launched for (its karpenter.sh/nodeclaim tag).
	NodeClaim    string
	NodeClaimUID string
	InstanceType string
	Zone         string
	CapacityType string
	ImageID      string
	// Price is the offering's price in dollars per hour.
	Price float64
	// Labels are the NodeClaim's labels plus the type's, zone, region and capacity type: what
	// the kubelet registers the node with.
	Labels map[string]string
	// Taints and StartupTaints are the NodeClaim's, as its user data passes them to the kubelet.
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	Capacity      corev1.ResourceList
	Allocatable   corev1.ResourceList
	LaunchedAt    time.Time
	State         InstanceState
	TerminatedAt  time.Time
	// ReclaimAt is when a spot interruption takes the instance back (zero when none is due).
	ReclaimAt time.Time
}

// Running reports whether the instance has not been terminated.
func (i Instance) Running() bool { return i.State == InstanceRunning }

func (i *Instance) clone() Instance {
	c := *i
	c.Labels = maps.Clone(i.Labels)
	c.Taints = slices.Clone(i.Taints)
	c.StartupTaints = slices.Clone(i.StartupTaints)
	c.Capacity = i.Capacity.DeepCopy()
	c.Allocatable = i.Allocatable.DeepCopy()
	return c
}

// Cloud is an in-memory cloud over a list of instance types. It implements
// cloudprovider.CloudProvider and cloudprovider.Interruptions.
//
// Create launches the cheapest available offering the NodeClaim allows, spot first when the
// NodeClaim allows spot and an available spot offering fits, as the EC2 provider's CreateFleet
// does; it is idempotent per NodeClaim (name and UID) like a client token. Offerings may be made
// to fail with InjectInsufficientCapacity: a launch tries them in price order, marks each that
// fails unavailable for UnavailableFor of clock time (InstanceTypes reports them so), and
// answers *cloudprovider.InsufficientCapacityError when none of the chosen capacity type
// launched. Termination is immediate. The zero value is not usable: use NewCloud.
type Cloud struct {
	faults
	clock clock.WithTicker

	mu          sync.Mutex
	types       []*cloudprovider.InstanceType
	instances   []*Instance
	launches    map[string]int
	ice         []OfferingKey
	unavailable map[OfferingKey]time.Time
	drifted     map[string]cloudprovider.DriftReason
	queue       []queuedInterruption
	delivered   []Delivery
	// arrived wakes Run when an interruption is queued.
	arrived chan struct{}
	// version counts changes, so that the Env can tell when the world settled.
	version uint64
	// RedeliveryDelay is how long an interruption whose handling failed waits before it is
	// delivered again, like an SQS visibility timeout. Set it before the Cloud is used.
	RedeliveryDelay time.Duration
}

// UnavailableFor is how long an offering that failed with insufficient capacity, or whose spot
// instance was interrupted, stays unavailable, as in Karpenter.
const UnavailableFor = 3 * time.Minute

var (
	_ cloudprovider.CloudProvider = (*Cloud)(nil)
	_ cloudprovider.Interruptions = (*Cloud)(nil)
)

// NewCloud returns a cloud offering types (DefaultInstanceTypes when nil). The types are shared,
// not copied: do not change them afterwards.
func NewCloud(clk clock.WithTicker, types []*cloudprovider.InstanceType) *Cloud {
	if types == nil {
		types = DefaultInstanceTypes()
	}
	return &Cloud{
		faults:          newFaults("Create", "Delete", "Get", "List", "InstanceTypes", "IsDrifted"),
		clock:           clk,
		types:           types,
		launches:        map[string]int{},
		unavailable:     map[OfferingKey]time.Time{},
		drifted:         map[string]cloudprovider.DriftReason{},
		arrived:         make(chan struct{}, 1),
		RedeliveryDelay: 20 * time.Second,
	}
}

// Reprice sets each offering's price to what price returns for it, as a moving market would:
// InstanceTypes reports the new prices from then on. The types given to NewCloud stay as they were.
func (c *Cloud) Reprice(price func(o OfferingKey, was float64) float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version++
	c.types = withOfferings(c.types, func(k OfferingKey, o *cloudprovider.Offering) { o.Price = price(k, o.Price) })
}

// Name is "fake".
func (c *Cloud) Name() string { return "fake" }

// NodeClassKind implements cloudprovider.CloudProvider: the harness launches from EC2NodeClasses.
func (c *Cloud) NodeClassKind() schema.GroupKind { return awsv1.EC2NodeClassGroupKind() }

// Instances returns copies of every instance launched, terminated ones included, in launch order.
func (c *Cloud) Instances() []Instance {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Instance, len(c.instances))
	for i, inst := range c.instances {
		out[i] = inst.clone()
	}
	return out
}

// Instance returns a copy of the instance with this provider ID.
func (c *Cloud) Instance(providerID string) (Instance, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if inst := c.byProviderID(providerID); inst != nil {
		return inst.clone(), true
	}
	return Instance{}, false
}

// Launches returns, per NodeClaim name, how many instances were launched for it (a Create
// answered from an earlier launch does not count). More than one breaks the rule "never two
// instances for one NodeClaim".
func (c *Cloud) Launches() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.launches)
}

// SetDrifted makes IsDrifted answer reason for the NodeClaim named nodeClaim ("" clears it).
func (c *Cloud) SetDrifted(nodeClaim string, reason cloudprovider.DriftReason) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if reason == "" {
		delete(c.drifted, nodeClaim)
		return
	}
	c.drifted[nodeClaim] = reason
}

// IsDrifted answers what SetDrifted set for the NodeClaim, or a *NodeClaimNotFoundError when
// its instance is gone.
func (c *Cloud) IsDrifted(ctx context.Context, nodeClaim *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	defer c.end("IsDrifted")
	if err := c.begin(ctx, "IsDrifted"); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if inst := c.instanceOf(nodeClaim); inst == nil || !inst.Running() {
		return "", &cloudprovider.NodeClaimNotFoundError{ProviderID: nodeClaim.Status.ProviderID}
	}
	return c.drifted[nodeClaim.Name], nil
}

// changes counts the changes to instances, offerings and the interruption queue so far.
func (c *Cloud) changes() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// byProviderID finds an instance; the caller holds the lock.
func (c *Cloud) byProviderID(providerID string) *Instance {
	for _, inst := range c.instances {
		if inst.ProviderID == providerID {
			return inst
		}
	}
	return nil
}

// instanceOf finds the instance of a NodeClaim: by its provider ID, or else by the NodeClaim
// tag (name and UID), as the EC2 provider finds a launch that was never recorded. The most
// recent launch wins. The caller holds the lock.
func (c *Cloud) instanceOf(nc *karpv1.NodeClaim) *Instance {
	if nc.Status.ProviderID != "" {
		return c.byProviderID(nc.Status.ProviderID)
	}
	for i := len(c.instances) - 1; i >= 0; i-- {
		if inst := c.instances[i]; inst.NodeClaim == nc.Name && inst.NodeClaimUID == string(nc.UID) {
			return inst
		}
	}
	return nil
}
