package conformance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/app"
	"github.com/nodepilot/nodepilot/aws"
	"github.com/nodepilot/nodepilot/aws/emulator"
	"github.com/nodepilot/nodepilot/demo"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/pods"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// scenario is a workload both controllers run: the manifests of testdata's folders, how many of
// its pods (DaemonSets' aside) run once it is placed, and the zone its nodes must be in, if one.
type scenario struct {
	name string
	dirs []string
	pods int
	zone string
}

// scenarios are the seed's workloads, each with the common EC2NodeClass and NodePool.
var scenarios = []scenario{
	{"inflate", []string{"common", "inflate"}, 5, ""},
	{"api-pdb", []string{"common", "api-pdb"}, 3, ""},
	{"gpu", []string{"common", "gpu"}, 1, ""},
	{"spot-and-on-demand", []string{"common", "spot-and-on-demand"}, 6, ""},
	{"zonal-spread", []string{"common", "zonal-spread"}, 3, ""},
	{"daemonset", []string{"common", "inflate", "daemonset"}, 5, ""},
	{"zonal-volume", []string{"common", "zonal-volume"}, 1, "us-east-1c"},
}

// manifests gathers the files of testdata's folders dirs into one folder, in the order of dirs.
func manifests(t testing.TB, dirs []string) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	for i, dir := range dirs {
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("%d-%s-%s", i, dir, e.Name())] = &fstest.MapFile{Data: data}
		}
	}
	return out
}

// cluster is a local control plane and AWS emulator with a scenario's first folder (its node
// classes and NodePools) applied, no controller running, and nodepilot watching read-only (its
// cluster state is the test's view). place adds the workload.
type cluster struct {
	t        testing.TB
	ctx      context.Context
	env      *demo.Environment
	scenario scenario
	// live is the nodepilot the test runs, whose journal says what it did.
	live *app.App
	// unschedulable is when the watching nodepilot first saw one of the workload's pods
	// unschedulable.
	unschedulable time.Time
}

func start(t testing.TB, timeout time.Duration, s scenario) *cluster {
	t.Helper()
	if _, err := localcluster.KarpenterBinary(); err != nil {
		t.Fatal(err) // the tier needs the real controller: missing, it fails and says how to build it
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	opts := demo.DefaultOptions()
	opts.Dir, opts.Controller, opts.Manifests = t.TempDir(), demo.ControllerNone, manifests(t, s.dirs[:1])
	opts.Metrics = false // the tier compares autoscalers; nothing there reads usage
	// Both controllers of a comparison launch into one spot market, whenever each runs.
	opts.HoldSpotPrices = true
	env, err := demo.Start(ctx, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- env.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("the watching console stopped with %v", err)
		}
		env.Close()
	})
	return &cluster{t: t, ctx: ctx, env: env, scenario: s}
}

// place applies the scenario's workload (its folders after the first) and waits until one of its
// pods is unschedulable.
func (c *cluster) place() {
	c.t.Helper()
	if err := c.env.Apply(c.ctx, manifests(c.t, c.scenario.dirs[1:])); err != nil {
		c.t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for !slices.ContainsFunc(c.env.App.Cluster.Snapshot().Pods, pods.IsProvisionable) {
		if time.Now().After(deadline) || c.ctx.Err() != nil {
			c.t.Fatalf("no pod of %s unschedulable within a minute", c.scenario.name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.unschedulable = time.Now()
}

// ready waits until the controller has found the NodePool and its EC2NodeClass ready: it can
// launch.
func (c *cluster) ready(timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		snap := c.env.App.Cluster.Snapshot()
		np, nc := snap.NodePool("default"), snap.NodeClass("default")
		if np != nil && nc != nil && meta.IsStatusConditionTrue(np.Status.Conditions, karpv1.ConditionTypeReady) &&
			meta.IsStatusConditionTrue(nc.StatusConditions(), karpv1.ConditionTypeReady) {
			return
		}
		if time.Now().After(deadline) || c.ctx.Err() != nil {
			c.t.Fatalf("the nodepool and ec2nodeclass not ready within %s (logs in %s)", timeout, c.env.Cluster.Dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// firstLaunch is when the emulator launched its first instance (CreateFleet's time).
func (c *cluster) firstLaunch() time.Time {
	var first time.Time
	for _, i := range c.env.Emulator.Instances() {
		if first.IsZero() || i.LaunchTime.Before(first) {
			first = i.LaunchTime
		}
	}
	return first
}

// run starts the controller named (demo.ControllerKarpenter or demo.ControllerNodepilot); stop
// stops it.
func (c *cluster) run(controller string) (stop func()) {
	if controller == demo.ControllerKarpenter {
		return c.karpenter()
	}
	return c.nodepilot()
}

// karpenter starts the real Karpenter controller; stop stops it.
func (c *cluster) karpenter() (stop func()) {
	c.t.Helper()
	k, err := c.env.Cluster.StartKarpenter(c.ctx, c.env.KarpenterOptions())
	if err != nil {
		c.t.Fatal(err)
	}
	return func() {
		if err := c.env.Cluster.StopController(k); err != nil {
			c.t.Errorf("stopping karpenter: %v", err)
		}
	}
}

// nodepilot starts a live nodepilot over the cluster; stop stops it.
func (c *cluster) nodepilot() (stop func()) {
	c.t.Helper()
	a, err := app.New(c.ctx, c.env.AppOptions(true))
	if err != nil {
		c.t.Fatal(err)
	}
	c.live = a
	ctx, cancel := context.WithCancel(c.ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			c.t.Errorf("nodepilot stopped with %v", err)
		}
	}
}

// nodeClaim is what a NodeClaim launched.
type nodeClaim struct {
	name, instanceType, capacityType, zone, providerID string
	// revision is the conformance/revision label the NodePool's template gives it.
	revision string
	deleting bool
	// disruption is the reason of its DisruptionReason condition, when it has one.
	disruption string
	// options are the instance types its requirements allowed.
	options []string
	// hash is its karpenter.sh/nodepool-hash annotation.
	hash string
}

// fleet is what the cluster and the emulator hold.
type fleet struct {
	claims    []nodeClaim // by name
	instances []string    // live instance ids, sorted
	running   int         // pods running, DaemonSets' aside
	pending   int         // pods pending
	want      int         // pods the scenario runs
	profile   string      // the EC2NodeClass's status.instanceProfile
	profiles  []string    // every instance profile in IAM, sorted
	launched  int         // instances the emulator ever launched
}

func (c *cluster) fleet() fleet {
	c.t.Helper()
	snap := c.env.App.Cluster.Snapshot()
	var f fleet
	for _, nc := range snap.NodeClaims {
		claim := nodeClaim{name: nc.Name, instanceType: nc.Labels[corev1.LabelInstanceTypeStable], capacityType: nc.Labels[karpv1.CapacityTypeLabelKey],
			zone: nc.Labels[corev1.LabelTopologyZone], providerID: nc.Status.ProviderID, revision: nc.Labels["conformance/revision"],
			deleting: nc.DeletionTimestamp != nil, hash: nc.Annotations[karpv1.NodePoolHashAnnotationKey]}
		if cond := meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeDisruptionReason); cond != nil && cond.Status == metav1.ConditionTrue {
			claim.disruption = cond.Reason
		}
		for _, r := range nc.Spec.Requirements {
			if r.Key == corev1.LabelInstanceTypeStable && r.Operator == corev1.NodeSelectorOpIn {
				claim.options = r.Values
			}
		}
		f.claims = append(f.claims, claim)
	}
	f.want = c.scenario.pods
	for _, p := range snap.Pods {
		switch {
		case p.DeletionTimestamp != nil:
		case p.Status.Phase == corev1.PodPending:
			f.pending++
		case p.Status.Phase == corev1.PodRunning && !pods.IsOwnedByDaemonSet(p):
			f.running++
		}
	}
	for _, i := range c.env.Emulator.Instances() {
		f.launched++
		if i.State == "pending" || i.State == "running" {
			f.instances = append(f.instances, i.ID)
		}
	}
	slices.Sort(f.instances)
	if nc := aws.NodeClass(snap, "default"); nc != nil {
		f.profile = nc.Status.InstanceProfile
	}
	f.profiles = c.instanceProfiles()
	return f
}

func (c *cluster) instanceProfiles() []string {
	c.t.Helper()
	cfg := sdkaws.Config{Region: c.env.Emulator.Region(), HTTPClient: c.env.Emulator.HTTPClient(),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}
	client := iam.NewFromConfig(cfg, func(o *iam.Options) { o.BaseEndpoint = sdkaws.String(c.env.Emulator.Endpoint()) })
	out, err := client.ListInstanceProfiles(c.ctx, &iam.ListInstanceProfilesInput{})
	if err != nil {
		c.t.Fatal(err)
	}
	var names []string
	for _, p := range out.InstanceProfiles {
		names = append(names, sdkaws.ToString(p.InstanceProfileName))
	}
	slices.Sort(names)
	return names
}

// waitFor polls the fleet until cond holds.
func (c *cluster) waitFor(timeout time.Duration, what string, cond func(fleet) error) fleet {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for {
		f := c.fleet()
		if err = cond(f); err == nil {
			return f
		}
		if time.Now().After(deadline) || c.ctx.Err() != nil {
			c.t.Fatalf("%s did not happen within %s: %v (logs in %s)", what, timeout, err, c.env.Cluster.Dir)
		}
		time.Sleep(time.Second)
	}
}

// settled holds when the scenario's pods run on launched NodeClaims, none being deleted, and no
// pod waits.
func settled(f fleet) error {
	if f.running != f.want || f.pending > 0 {
		return fmt.Errorf("%d pods running, want %d; %d pending", f.running, f.want, f.pending)
	}
	for _, nc := range f.claims {
		switch {
		case nc.providerID == "":
			return fmt.Errorf("nodeclaim %s not launched", nc.name)
		case nc.deleting:
			return fmt.Errorf("nodeclaim %s being deleted", nc.name)
		}
	}
	return nil
}

// shapes counts the fleet's NodeClaims by instance type, capacity type and zone, sorted.
func (f fleet) shapes() string {
	count := map[string]int{}
	for _, nc := range f.claims {
		count[nc.instanceType+" "+nc.capacityType+" "+nc.zone]++
	}
	var out []string
	for _, shape := range slices.Sorted(maps.Keys(count)) {
		if count[shape] > 1 {
			shape = fmt.Sprintf("%dx %s", count[shape], shape)
		}
		out = append(out, shape)
	}
	return strings.Join(out, ", ")
}

func (f fleet) hashes() []string {
	var out []string
	for _, nc := range f.claims {
		out = append(out, nc.name+"="+nc.hash)
	}
	return out
}

func (f fleet) names() []string {
	var out []string
	for _, nc := range f.claims {
		out = append(out, nc.name)
	}
	return out
}

// price is what the fleet costs per hour at the emulator's prices, as the watching console
// prices it.
func (c *cluster) price() float64 {
	total := 0.0
	for _, sn := range c.env.App.Cluster.Snapshot().Nodes {
		if sn.NodeClaim == nil {
			continue
		}
		capacityType, zone := sn.Placement()
		if it := c.env.App.InstanceType(sn.NodePool(), sn.Labels()[corev1.LabelInstanceTypeStable]); it != nil {
			for _, o := range it.Offerings {
				if o.CapacityType == capacityType && o.Zone == zone {
					total += o.Price
				}
			}
		}
	}
	return total
}

// TestSameWorkloadBothControllers runs each scenario under Karpenter, then under nodepilot on a
// fresh cluster: the same number of nodes, of the same instance types, or of types Karpenter's
// NodeClaims also allowed, for no more.
func TestSameWorkloadBothControllers(t *testing.T) {
	type outcome struct {
		f     fleet
		price float64
		// toLaunch is from the first pod unschedulable to the first CreateFleet, toRunning to
		// every pod running.
		toLaunch, toRunning time.Duration
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			run := func(controller string) outcome {
				c := start(t, 6*time.Minute, s)
				defer c.run(controller)()
				c.ready(2 * time.Minute)
				c.place()
				f := c.waitFor(4*time.Minute, controller+" running "+s.name, settled)
				return outcome{f: f, price: c.price(), toLaunch: c.firstLaunch().Sub(c.unschedulable), toRunning: time.Since(c.unschedulable)}
			}
			karp, ours := run(demo.ControllerKarpenter), run(demo.ControllerNodepilot)
			t.Logf("%-20s | karpenter: %d nodes [%s] $%.4f/h, unschedulable to CreateFleet %s, to running %s | nodepilot: %d nodes [%s] $%.4f/h, %s, %s",
				s.name, len(karp.f.claims), karp.f.shapes(), karp.price, karp.toLaunch.Round(100*time.Millisecond), karp.toRunning.Round(time.Second),
				len(ours.f.claims), ours.f.shapes(), ours.price, ours.toLaunch.Round(100*time.Millisecond), ours.toRunning.Round(time.Second))
			for who, o := range map[string]outcome{demo.ControllerKarpenter: karp, demo.ControllerNodepilot: ours} {
				for _, nc := range o.f.claims {
					if s.zone != "" && nc.zone != s.zone {
						t.Errorf("%s launched %s in %s, want %s (the pods' volume is there)", who, nc.name, nc.zone, s.zone)
					}
				}
			}
			if len(karp.f.claims) != len(ours.f.claims) {
				t.Errorf("karpenter launched %d nodes, nodepilot %d", len(karp.f.claims), len(ours.f.claims))
			}
			// The same types, or types Karpenter's NodeClaims also allowed at no more cost.
			var kTypes, oTypes, options []string
			for _, nc := range karp.f.claims {
				kTypes, options = append(kTypes, nc.instanceType), append(options, nc.options...)
			}
			for _, nc := range ours.f.claims {
				oTypes = append(oTypes, nc.instanceType)
			}
			slices.Sort(kTypes)
			slices.Sort(oTypes)
			if !slices.Equal(kTypes, oTypes) {
				for _, it := range oTypes {
					if !slices.Contains(options, it) {
						t.Errorf("nodepilot launched %s, which none of karpenter's nodeclaims allowed", it)
					}
				}
				if ours.price > karp.price {
					t.Errorf("nodepilot launched %v for $%.4f/h, karpenter %v for $%.4f/h", oTypes, ours.price, kTypes, karp.price)
				}
			}
		})
	}
}

// handOver runs inflate under one controller, stops it and starts the other: nothing is
// replaced, launched or terminated, the instance profile is kept and no IAM resource is added;
// then a change to the NodePool's template drifts the nodes, and the new controller replaces
// them.
func handOver(t *testing.T, first, second string) {
	c := start(t, 8*time.Minute, scenarios[0])
	c.place()
	stopFirst := c.run(first)
	before := c.waitFor(4*time.Minute, first+" running inflate", settled)
	// Let the first controller finish what it does after a launch (status, tags, profiles).
	time.Sleep(10 * time.Second)
	before = c.fleet()
	stopFirst()
	stopSecond := c.run(second)
	defer stopSecond()
	t.Logf("%s hands %d nodeclaims %v (instances %v, profile %s) to %s", first, len(before.claims), before.names(), before.instances, before.profile, second)
	time.Sleep(45 * time.Second) // past a disruption pass and its validation, and a status round
	after := c.fleet()
	for what, same := range map[string]bool{
		"nodeclaims":               slices.Equal(before.names(), after.names()),
		"instances":                slices.Equal(before.instances, after.instances),
		"the ec2nodeclass profile": before.profile == after.profile && after.profile != "",
		"instance profiles in IAM": slices.Equal(before.profiles, after.profiles),
		"instances ever launched":  before.launched == after.launched,
	} {
		if !same {
			t.Errorf("%s changed when %s took over from %s: before %v on %v, after %v on %v", what, second, first,
				before.names(), before.instances, after.names(), after.instances)
		}
	}
	if err := settled(after); err != nil {
		t.Errorf("after the hand-over: %v", err)
	}
	if t.Failed() && c.live != nil {
		np := c.env.App.Cluster.Snapshot().NodePool("default")
		t.Logf("nodepool hash %s (annotation %s), nodeclaims' hashes before %v", karpv1.Hash(np), np.Annotations[karpv1.NodePoolHashAnnotationKey], before.hashes())
		for _, e := range c.live.Journal.Entries(0) {
			if e.Kind != journal.KindAction {
				t.Logf("nodepilot journal: %s %s %s: %s", e.Kind, e.Method, e.Reason, e.Message)
			}
		}
	}

	if _, err := c.env.Clients().NodePools.Patch(c.ctx, "default", []byte(`{"spec":{"template":{"metadata":{"labels":{"conformance/revision":"2"}}}}}`), false); err != nil {
		t.Fatal(err)
	}
	// Both controllers say on a NodeClaim they disrupt why, in its DisruptionReason condition.
	said := map[string]string{}
	c.waitFor(5*time.Minute, second+" replacing the drifted nodes", func(f fleet) error {
		for _, nc := range f.claims {
			if nc.disruption != "" {
				said[nc.name] = nc.disruption
			}
		}
		for _, nc := range f.claims {
			if nc.revision != "2" {
				return fmt.Errorf("nodeclaim %s is of the template before the change", nc.name)
			}
		}
		return settled(f)
	})
	for _, name := range before.names() {
		if said[name] != string(karpv1.DisruptionReasonDrifted) {
			t.Errorf("%s disrupted drifted nodeclaim %s with DisruptionReason %q, want %s", second, name, said[name], karpv1.DisruptionReasonDrifted)
		}
	}
}

func TestHandOverKarpenterToNodepilot(t *testing.T) {
	handOver(t, demo.ControllerKarpenter, demo.ControllerNodepilot)
}

func TestHandOverNodepilotToKarpenter(t *testing.T) {
	handOver(t, demo.ControllerNodepilot, demo.ControllerKarpenter)
}

// TestKarpenterHandlesAnInterruption: a spot interruption sent through the emulator's queue is
// handled by Karpenter, which runs the pods elsewhere, as nodepilot does in the demo's story.
func TestKarpenterHandlesAnInterruption(t *testing.T) {
	c := start(t, 6*time.Minute, scenarios[0])
	c.place()
	defer c.karpenter()()
	before := c.waitFor(4*time.Minute, "karpenter running inflate", settled)
	var spot *nodeClaim
	for i, nc := range before.claims {
		if nc.capacityType == karpv1.CapacityTypeSpot {
			spot = &before.claims[i]
		}
	}
	if spot == nil {
		t.Fatalf("karpenter launched no spot node: %+v", before.claims)
	}
	id := spot.providerID[strings.LastIndex(spot.providerID, "/")+1:]
	if err := c.env.Emulator.Interrupt(emulator.Interruption{Kind: emulator.SpotInterruption, InstanceID: id}); err != nil {
		t.Fatal(err)
	}
	c.waitFor(4*time.Minute, "the interrupted node replaced", func(f fleet) error {
		if slices.ContainsFunc(f.claims, func(nc nodeClaim) bool { return nc.name == spot.name }) {
			return fmt.Errorf("nodeclaim %s still there", spot.name)
		}
		return settled(f)
	})
	events, err := c.env.Clients().Kube.CoreV1().Events("").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]bool{}
	for _, e := range events.Items {
		reasons[e.Reason] = true
	}
	if !reasons["SpotInterrupted"] {
		t.Errorf("no SpotInterrupted event among %v", slices.Sorted(maps.Keys(reasons)))
	}
}

// TestIgnoredPodBothControllers: a pod pinned to a hostname gets no node from either controller,
// and both tell it why in a FailedScheduling event that names the label (kube-scheduler's own
// event says otherwise).
func TestIgnoredPodBothControllers(t *testing.T) {
	for _, controller := range []string{demo.ControllerKarpenter, demo.ControllerNodepilot} {
		t.Run(controller, func(t *testing.T) {
			c := start(t, 4*time.Minute, scenario{"ignored", []string{"common", "ignored"}, 0, ""})
			c.place()
			defer c.run(controller)()
			deadline := time.Now().Add(2 * time.Minute)
			for {
				events, err := c.env.Clients().Kube.CoreV1().Events("default").List(c.ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=pinned"})
				if err != nil {
					t.Fatal(err)
				}
				if slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
					return e.Reason == "FailedScheduling" && strings.HasPrefix(e.Message, "Failed to schedule pod, ") && strings.Contains(e.Message, corev1.LabelHostname)
				}) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s did not tell the pinned pod why it ignores it within 2m: %v (logs in %s)", controller, events.Items, c.env.Cluster.Dir)
				}
				time.Sleep(time.Second)
			}
			if n := len(c.env.App.Cluster.Snapshot().NodeClaims); n != 0 {
				t.Errorf("%s made %d nodeclaims for a pod it ignores", controller, n)
			}
		})
	}
}

// TestUnsupportedAliasBothControllers: on the local control plane's Kubernetes (1.37) an al2@
// alias has no AMI, and both controllers say so alike: AMIsReady False, reason UnsupportedAlias,
// and the EC2NodeClass not Ready.
func TestUnsupportedAliasBothControllers(t *testing.T) {
	for _, controller := range []string{demo.ControllerKarpenter, demo.ControllerNodepilot} {
		t.Run(controller, func(t *testing.T) {
			c := start(t, 4*time.Minute, scenario{"al2", []string{"al2"}, 0, ""})
			defer c.run(controller)()
			deadline := time.Now().Add(2 * time.Minute)
			for {
				var amis *metav1.Condition
				if nc := aws.NodeClass(c.env.App.Cluster.Snapshot(), "al2"); nc != nil {
					amis = meta.FindStatusCondition(nc.Status.Conditions, awsv1.ConditionTypeAMIsReady)
					if amis != nil && amis.Status == metav1.ConditionFalse {
						if amis.Reason != "UnsupportedAlias" || meta.IsStatusConditionTrue(nc.Status.Conditions, awsv1.ConditionTypeReady) {
							t.Errorf("%s: AMIsReady False with reason %s (%s), Ready %v; want reason UnsupportedAlias, not Ready", controller,
								amis.Reason, amis.Message, meta.IsStatusConditionTrue(nc.Status.Conditions, awsv1.ConditionTypeReady))
						}
						return
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s did not refuse the al2@latest alias within 2m: AMIsReady %+v (logs in %s)", controller, amis, c.env.Cluster.Dir)
				}
				time.Sleep(time.Second)
			}
		})
	}
}
