package aws

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	corev1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	"github.com/nodepilot/nodepilot/aws/emulator"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/internal/eventually"
)

// emulatorEnv is a provider using the real SDK clients, without retries, against an
// in-process emulator; both run on one fake clock.
type emulatorEnv struct {
	em      *emulator.Emulator
	clk     *testingclock.FakeClock
	cfg     Options
	clients Clients
	ec2     *fleetRecorder
	p       *Provider
	store   *nodeClassStore
	sqs     *sqs.Client
	// measured keeps what the provider measured.
	measured enginetest.Measurements
}

// startEmulator starts an emulator for cluster "test" (instances running at once, no call
// latency) and a provider over it.
func startEmulator(t testing.TB, tweak func(*emulator.Config)) *emulatorEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clk := testingclock.NewFakeClock(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	cfg := emulator.Config{ClusterName: "test", Clock: clk, Seed: 1}
	if tweak != nil {
		tweak(&cfg)
	}
	em, err := emulator.Start(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("starting the emulator: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = em.Close()
	})
	env := &emulatorEnv{em: em, clk: clk, store: &nodeClassStore{}}
	env.store.put(emulatorNodeClass())
	sdkCfg := testSDKConfig(t, env.em.HTTPClient())
	endpoint := em.Endpoint()
	env.sqs = sqs.NewFromConfig(sdkCfg, func(o *sqs.Options) { o.BaseEndpoint = &endpoint })
	env.clients = NewClients(sdkCfg, Endpoints{}.All(endpoint), quietLog())
	env.ec2 = &fleetRecorder{EC2API: env.clients.EC2}
	env.clients.EC2 = env.ec2
	env.p = env.newProvider(t, env.clients)
	return env
}

// newProvider makes a provider over clients, as a restarted process would.
func (env *emulatorEnv) newProvider(t testing.TB, clients Clients) *Provider {
	t.Helper()
	env.cfg = Options{
		ClusterName:          "test",
		Region:               testRegion,
		KubernetesVersion:    "1.31",
		ClusterEndpoint:      "https://127.0.0.1:6443",
		ClusterCABundle:      "Y2E=",
		NodeClass:            env.store.get,
		Clock:                env.clk,
		Log:                  quietLog(),
		Act:                  liveAct(env.clk),
		TerminateBatchWindow: 10 * time.Millisecond,
		Measure:              env.measured.Measure,
	}
	p, err := New(clients, env.cfg)
	if err != nil {
		t.Fatalf("new provider: %v", err)
	}
	return p
}

// instancesOf lists the emulator's live instances tagged for a NodeClaim.
func (env *emulatorEnv) instancesOf(nodeClaim string) []emulator.Instance {
	var out []emulator.Instance
	for _, inst := range env.em.Instances() {
		if inst.Tags[awsv1.TagKeyNodeClaim] == nodeClaim && inst.State != "terminated" && inst.State != "shutting-down" {
			out = append(out, inst)
		}
	}
	return out
}

func emulatorNodeClass() *awsv1.EC2NodeClass {
	return testNodeClass("KarpenterNodeRole", awsv1.AMISelectorTerm{Alias: "al2023@latest"})
}

// testNodeClass is the EC2NodeClass the provider's tests launch with: subnets and security
// groups discovered by tag, the given role and AMI term.
func testNodeClass(role string, ami awsv1.AMISelectorTerm) *awsv1.EC2NodeClass {
	nc := &awsv1.EC2NodeClass{}
	nc.Name, nc.UID, nc.Generation = "default", "nodeclass-uid", 1
	nc.Spec = awsv1.EC2NodeClassSpec{
		SubnetSelectorTerms:        []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "test"}}},
		SecurityGroupSelectorTerms: []awsv1.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "test"}}},
		AMISelectorTerms:           []awsv1.AMISelectorTerm{ami},
		Role:                       role,
		Tags:                       map[string]string{"team": "platform"},
	}
	return nc
}

// fleetRecorder passes EC2 calls through, remembering CreateFleet requests and answers; with
// crash set, it loses CreateFleet's answer after EC2 acted on it, as a process dying then would.
type fleetRecorder struct {
	EC2API
	mu       sync.Mutex
	requests []*ec2.CreateFleetInput
	answers  []*ec2.CreateFleetOutput
	crash    bool
}

func (f *fleetRecorder) CreateFleet(ctx context.Context, in *ec2.CreateFleetInput, opts ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error) {
	out, err := f.EC2API.CreateFleet(ctx, in, opts...)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, in)
	f.answers = append(f.answers, out)
	if f.crash && err == nil {
		return nil, errors.New("the process died before recording the launch")
	}
	return out, err
}

func (f *fleetRecorder) last() (*ec2.CreateFleetInput, *ec2.CreateFleetOutput) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1], f.answers[len(f.answers)-1]
}

// overrides lists a fleet request's pools as "type zone".
func overrides(in *ec2.CreateFleetInput) []string {
	var out []string
	for _, cfg := range in.LaunchTemplateConfigs {
		for _, o := range cfg.Overrides {
			out = append(out, string(o.InstanceType)+" "+*o.AvailabilityZone)
		}
	}
	return out
}

func TestEmulatorInstanceTypesAndPrices(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	types, err := env.p.InstanceTypes(ctx, testNodePool())
	if err != nil {
		t.Fatal(err)
	}
	cat := loadCatalog(t)
	if len(types) < len(cat.Entries)*9/10 {
		t.Errorf("%d instance types, want nearly the catalog's %d", len(types), len(cat.Entries))
	}
	calls := env.clients.Calls.Counts()
	if calls["ec2:DescribeInstanceTypes"] < int64(len(types)/100) {
		t.Errorf("%d DescribeInstanceTypes calls for %d types, want every page read", calls["ec2:DescribeInstanceTypes"], len(types))
	}
	var m5 *cloudprovider.InstanceType
	for _, it := range types {
		if it.Name == "m5.large" {
			m5 = it
		}
	}
	if m5 == nil {
		t.Fatal("no m5.large")
	}
	var catalogPrice float64
	for _, e := range cat.Entries {
		if e.Name == "m5.large" {
			catalogPrice = e.OnDemandPrice
		}
	}
	if zones := m5.Offerings.Zones(); strings.Join(zones, ",") != "us-east-1a,us-east-1b,us-east-1c" {
		t.Errorf("m5.large zones %v, want the three subnet zones", zones)
	}
	for _, o := range m5.Offerings {
		switch o.CapacityType {
		case karpv1.CapacityTypeOnDemand:
			if o.PriceSource.Kind != cloudprovider.PricePricingAPI || o.Price != catalogPrice || !o.Available || o.PriceSource.AsOf.IsZero() {
				t.Errorf("on-demand offering %+v, want the Pricing API's %v with its time", o, catalogPrice)
			}
		case karpv1.CapacityTypeSpot:
			if o.PriceSource.Kind != cloudprovider.PriceSpotHistory || o.Price <= 0 || o.Price >= catalogPrice || !o.Available {
				t.Errorf("spot offering %+v, want a spot price history quote below on-demand", o)
			}
		}
	}
	// Bare metal is priced too: the Pricing API lists it under dedicated tenancy, where the
	// provider asks, as Karpenter does.
	for _, it := range types {
		if it.Name != "m5.metal" {
			continue
		}
		for _, o := range it.Offerings {
			if o.CapacityType == karpv1.CapacityTypeOnDemand && o.PriceSource.Kind != cloudprovider.PricePricingAPI {
				t.Errorf("m5.metal on-demand offering %+v, want the Pricing API's price", o)
			}
		}
	}
	st := env.p.Status()
	for name, ds := range map[string]DataStatus{"instance types": st.InstanceTypes, "on-demand": st.OnDemandPrices, "spot": st.SpotPrices} {
		if ds.Err != "" || ds.Count == 0 || ds.UpdatedAt.IsZero() {
			t.Errorf("%s status %+v, want fresh data", name, ds)
		}
	}
	// Asking again reads nothing: the data is cached for the refresh period.
	before := env.clients.Calls.Counts()
	if _, err := env.p.InstanceTypes(ctx, testNodePool()); err != nil {
		t.Fatal(err)
	}
	if d := diffCounts(before, env.clients.Calls.Counts()); len(d) != 0 {
		t.Errorf("second InstanceTypes called %v, want nothing", d)
	}
	// After the refresh period it reads again.
	env.clk.Step(DefaultRefreshPeriod)
	before = env.clients.Calls.Counts()
	if _, err := env.p.InstanceTypes(ctx, testNodePool()); err != nil {
		t.Fatal(err)
	}
	if d := diffCounts(before, env.clients.Calls.Counts()); d["ec2:DescribeInstanceTypes"] == 0 || d["pricing:GetProducts"] == 0 || d["ec2:DescribeSpotPriceHistory"] == 0 {
		t.Errorf("InstanceTypes after %s called %v, want a refresh of types and prices", DefaultRefreshPeriod, d)
	}
}

func TestEmulatorRefreshFailuresKeepTheLastGoodData(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	// The Pricing API fails from the start: the catalog's prices serve.
	if err := env.em.FailNext("GetProducts", 1, "InternalError"); err != nil {
		t.Fatal(err)
	}
	if err := env.p.Refresh(ctx); err == nil || !strings.Contains(err.Error(), "on-demand prices") {
		t.Fatalf("refresh: %v, want the Pricing API's failure", err)
	}
	if st := env.p.Status().OnDemandPrices; st.Source != cloudprovider.PriceCatalog || st.Err == "" {
		t.Errorf("on-demand status %+v, want the catalog and the error", st)
	}
	types, err := env.p.InstanceTypes(ctx, testNodePool())
	if err != nil || len(types) == 0 {
		t.Fatalf("instance types with the catalog's prices: %d, %v", len(types), err)
	}
	if o := types[0].Offerings[0]; o.CapacityType == karpv1.CapacityTypeOnDemand && o.PriceSource.Kind != cloudprovider.PriceCatalog {
		t.Errorf("offering %+v, want a catalog price", o)
	}
	// Everything succeeds, then every source fails: the last good data stays in use.
	if err := env.p.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	good := env.p.Status()
	for _, op := range []string{"DescribeInstanceTypes", "GetProducts", "DescribeSpotPriceHistory"} {
		if err := env.em.FailNext(op, 1, "InternalError"); err != nil {
			t.Fatal(err)
		}
	}
	err = env.p.Refresh(ctx)
	for _, name := range []string{"instance types", "on-demand prices", "spot prices"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("refresh error %v, want one naming %s", err, name)
		}
	}
	bad := env.p.Status()
	if bad.InstanceTypes.Count != good.InstanceTypes.Count || bad.InstanceTypes.Err == "" || bad.InstanceTypes.UpdatedAt != good.InstanceTypes.UpdatedAt {
		t.Errorf("instance types status %+v after a failure, want the last good %+v and the error", bad.InstanceTypes, good.InstanceTypes)
	}
	if bad.OnDemandPrices.Source != cloudprovider.PricePricingAPI || bad.SpotPrices.Source != cloudprovider.PriceSpotHistory {
		t.Errorf("price sources %q and %q, want the last good pricing-api and spot-price-history", bad.OnDemandPrices.Source, bad.SpotPrices.Source)
	}
	if again, err := env.p.InstanceTypes(ctx, testNodePool()); err != nil || len(again) != len(types) {
		t.Errorf("instance types after failures: %d, %v; want the %d of before", len(again), err, len(types))
	}
}

func TestEmulatorSelectors(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	subnets := env.em.Subnets()
	tests := []struct {
		name       string
		spec       func(*awsv1.EC2NodeClassSpec)
		subnets    int
		groups     []string // names
		amiNames   []string
		newest     bool
		notReadyOn string
		// unsupported is a condition that is False while the class stays Ready.
		unsupported string
		// reason is notReadyOn's reason, when it matters.
		reason string
	}{
		{"discovery tags", func(*awsv1.EC2NodeClassSpec) {}, 3, []string{"test-node"}, []string{"", ""}, false, "", "", ""},
		{"terms are ORed", func(s *awsv1.EC2NodeClassSpec) {
			s.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{ID: subnets[0].ID}, {ID: subnets[2].ID}}
			s.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{Name: "test-node"}, {Name: "default"}}
		}, 2, []string{"default", "test-node"}, nil, false, "", "", ""},
		{"tags are ANDed, * is any value", func(s *awsv1.EC2NodeClassSpec) {
			s.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "test", "network": "*"}}}
			s.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{Tags: map[string]string{"kubernetes.io/cluster/test": "owned", "aws:eks:cluster-name": "*"}}}
		}, 3, []string{"eks-cluster-sg-test"}, nil, false, "", "", ""},
		{"a tag no subnet has", func(s *awsv1.EC2NodeClassSpec) {
			s.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "test", "network": "public"}}}
		}, 0, nil, nil, false, awsv1.ConditionTypeSubnetsReady, "", ""},
		{"custom AMIs by tags: the newest per architecture", func(s *awsv1.EC2NodeClassSpec) {
			s.AMIFamily = ptr.To(awsv1.AMIFamilyAL2023)
			s.AMISelectorTerms = []awsv1.AMISelectorTerm{{Tags: map[string]string{"team": "platform"}, Owner: "self"}}
		}, 3, nil, []string{"nodepilot-custom-al2023-x86_64-", "nodepilot-custom-al2023-arm64-"}, true, "", "", ""},
		{"an AMI by name", func(s *awsv1.EC2NodeClassSpec) {
			s.AMIFamily = ptr.To(awsv1.AMIFamilyAL2023)
			s.AMISelectorTerms = []awsv1.AMISelectorTerm{{Name: "amazon-eks-node-al2023-x86_64-standard-1.30-*"}}
		}, 3, nil, []string{"amazon-eks-node-al2023-x86_64-standard-1.30"}, false, "", "", ""},
		{name: "an alias with no AMI for the cluster's version, refused as Karpenter does", spec: func(s *awsv1.EC2NodeClassSpec) {
			s.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: "windows2025@latest"}} // from Kubernetes 1.35; the provider runs 1.31
		}, subnets: 3, notReadyOn: awsv1.ConditionTypeAMIsReady, reason: "UnsupportedAlias"},
		{name: "capacity reservations: not launched into, and the class stays Ready", spec: func(s *awsv1.EC2NodeClassSpec) {
			s.CapacityReservationSelectorTerms = []awsv1.CapacityReservationSelectorTerm{{ID: "cr-0123456789abcdef0"}}
		}, subnets: 3, unsupported: awsv1.ConditionTypeCapacityReservationsReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := emulatorNodeClass()
			tt.spec(&nc.Spec)
			env.clk.Step(DefaultSelectorTTL) // each case resolves afresh
			st := env.p.NodeClassStatus(ctx, nc)
			if len(st.Subnets) != tt.subnets {
				t.Errorf("subnets %+v, want %d", st.Subnets, tt.subnets)
			}
			if tt.groups != nil {
				var names []string
				for _, g := range st.SecurityGroups {
					names = append(names, g.Name)
				}
				if strings.Join(slices.Sorted(slices.Values(names)), ",") != strings.Join(tt.groups, ",") {
					t.Errorf("security groups %v, want %v", names, tt.groups)
				}
			}
			if tt.amiNames != nil {
				if len(st.AMIs) != len(tt.amiNames) {
					t.Fatalf("AMIs %+v, want %d", st.AMIs, len(tt.amiNames))
				}
				for i, prefix := range tt.amiNames {
					if !strings.HasPrefix(st.AMIs[i].Name, prefix) {
						t.Errorf("AMI %d %+v, want a name starting %q", i, st.AMIs[i], prefix)
					}
				}
			}
			if tt.newest {
				for _, a := range st.AMIs {
					if want := newestImage(t, env, a.Requirements[0].Values[0]); a.ID != want {
						t.Errorf("%s AMI %s, want the newest tagged one, %s", a.Requirements[0].Values[0], a.ID, want)
					}
				}
			}
			for _, c := range st.Conditions {
				wantTrue := tt.notReadyOn == "" || (c.Type != tt.notReadyOn && c.Type != awsv1.ConditionTypeReady)
				if tt.unsupported != "" {
					wantTrue = c.Type != tt.unsupported
				}
				if (c.Status == "True") != wantTrue {
					t.Errorf("condition %s %s (%s), want true=%v", c.Type, c.Status, c.Message, wantTrue)
				}
				if c.Type == tt.notReadyOn && tt.reason != "" && c.Reason != tt.reason {
					t.Errorf("condition %s reason %s (%s), want %s", c.Type, c.Reason, c.Message, tt.reason)
				}
			}
		})
	}
}

// newestImage asks EC2 for the account's images tagged team=platform of an architecture and
// returns the newest.
func newestImage(t *testing.T, env *emulatorEnv, arch string) string {
	t.Helper()
	endpoint := env.em.Endpoint()
	raw := ec2.NewFromConfig(testSDKConfig(t, env.em.HTTPClient()), func(o *ec2.Options) { o.BaseEndpoint = &endpoint })
	out, err := raw.DescribeImages(context.Background(), &ec2.DescribeImagesInput{Owners: []string{"self"},
		Filters: []ec2types.Filter{{Name: sdkaws.String("tag:team"), Values: []string{"platform"}}}})
	must(t, err)
	best, created := "", ""
	for _, img := range out.Images {
		if archOf([]ec2types.ArchitectureType{ec2types.ArchitectureType(img.Architecture)}) == arch && *img.CreationDate > created {
			best, created = *img.ImageId, *img.CreationDate
		}
	}
	return best
}

func TestEmulatorLaunch(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	if _, err := env.p.InstanceTypes(ctx, testNodePool()); err != nil {
		t.Fatal(err)
	}
	_ = env.p.NodeClassStatus(ctx, emulatorNodeClass()) // the kube layer resolves the node class first
	claim := testNodeClaim("default-1", in(corev1.LabelArchStable, "amd64"), in(awsv1.LabelInstanceCPU, "2"))
	claim.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}}
	before := env.clients.Calls.Counts()
	got, err := env.p.Create(ctx, claim)
	if err != nil {
		t.Fatal(err)
	}
	first := diffCounts(before, env.clients.Calls.Counts())
	before = env.clients.Calls.Counts()
	second, err := env.p.Create(ctx, testNodeClaim("default-2", in(corev1.LabelArchStable, "amd64"), in(awsv1.LabelInstanceCPU, "2")))
	if err != nil {
		t.Fatal(err)
	}
	if d := diffCounts(before, env.clients.Calls.Counts()); d["ec2:CreateFleet"] != 1 || len(d) > 2 {
		t.Errorf("a launch of another configuration called %v, want CreateLaunchTemplate and CreateFleet", d)
	}
	if !mapsEqual(first, map[string]int64{"ec2:CreateLaunchTemplate": 1, "ec2:CreateFleet": 1}) {
		t.Errorf("first launch called %v, want CreateLaunchTemplate and CreateFleet", first)
	}
	// default-2 has no taint, so its user data and launch template differ; a third launch like
	// the second shows the steady state.
	before = env.clients.Calls.Counts()
	if _, err := env.p.Create(ctx, testNodeClaim("default-3", in(corev1.LabelArchStable, "amd64"), in(awsv1.LabelInstanceCPU, "2"))); err != nil {
		t.Fatal(err)
	}
	steady := diffCounts(before, env.clients.Calls.Counts())
	t.Logf("API calls per launch: %v for the first of a configuration, then %v", first, steady)
	if !mapsEqual(steady, map[string]int64{"ec2:CreateFleet": 1}) {
		t.Errorf("a launch of a known configuration called %v, want CreateFleet only", steady)
	}
	if n := env.em.CallCounts(); n["DescribeInstanceTypes"] == 0 || n["CreateFleet"] != 3 {
		t.Errorf("the emulator counted %v", n)
	}

	req, _ := env.ec2.last()
	if len(overrides(req)) > MaxFleetInstanceTypes*3 || req.SpotOptions == nil {
		t.Errorf("fleet request with %d overrides, spot options %v", len(overrides(req)), req.SpotOptions)
	}
	insts := env.instancesOf("default-1")
	if len(insts) != 1 {
		t.Fatalf("instances of default-1: %+v, want one", insts)
	}
	inst := insts[0]
	if got.Status.ProviderID != "aws:///"+inst.Zone+"/"+inst.ID || got.Status.ImageID != inst.ImageID ||
		got.Labels[corev1.LabelInstanceTypeStable] != inst.InstanceType || got.Labels[karpv1.CapacityTypeLabelKey] != karpv1.CapacityTypeSpot ||
		got.Labels[corev1.LabelTopologyZone] != inst.Zone || got.Labels[awsv1.LabelInstanceCPU] != "2" || got.Labels[awsv1.LabelTopologyZoneID] == "" {
		t.Errorf("nodeclaim %v %+v does not describe instance %+v", got.Labels, got.Status, inst)
	}
	if got.Status.Allocatable.Cpu().MilliValue() >= 2000 || got.Status.Capacity.Memory().IsZero() {
		t.Errorf("capacity %v allocatable %v, want 2 CPUs less overhead", got.Status.Capacity, got.Status.Allocatable)
	}
	for k, v := range map[string]string{"kubernetes.io/cluster/test": "owned", awsv1.TagKeyEKSClusterName: "test", awsv1.TagKeyNodePool: "default",
		awsv1.TagKeyNodeClaim: "default-1", awsv1.TagKeyNodeClass: "default", "Name": "default-1", "team": "platform"} {
		if inst.Tags[k] != v {
			t.Errorf("instance tag %s=%q, want %q", k, inst.Tags[k], v)
		}
	}
	if second.Labels[corev1.LabelTopologyZone] == "" {
		t.Errorf("second launch %v", second.Labels)
	}
	list, err := env.p.List(ctx)
	if err != nil || len(list) != 3 {
		t.Errorf("list: %d, %v; want 3", len(list), err)
	}
}

// TestEmulatorCapacityErrorsMoveToTheNextOffering injects capacity errors for the cheapest
// on-demand offering: the launch fails with an insufficient capacity error naming it, the engine
// sees it unavailable at once, and the retry gets the next cheapest offering without trying the
// failed one again; three minutes later it is available again.
func TestEmulatorCapacityErrorsMoveToTheNextOffering(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	if err := env.em.InjectCapacityError(emulator.CapacityFault{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "on-demand"}); err != nil {
		t.Fatal(err)
	}
	onDemand := in(karpv1.CapacityTypeLabelKey, karpv1.CapacityTypeOnDemand)
	zoneA := in(corev1.LabelTopologyZone, "us-east-1a")
	failed := offering{karpv1.CapacityTypeOnDemand, "m5.large", "us-east-1a"}

	_, err := env.p.Create(ctx, testNodeClaim("first", in(corev1.LabelInstanceTypeStable, "m5.large"), zoneA, onDemand))
	var ice *cloudprovider.InsufficientCapacityError
	if !errors.As(err, &ice) || strings.Join(ice.Offerings, ",") != failed.String() {
		t.Fatalf("create: %v, want an insufficient capacity error for %s", err, failed)
	}
	// Karpenter's launch failure metric counts it where it happened, with the zone's id.
	if got := env.measured.Of(journal.MeasureLaunchFailure); len(got) != 1 || got[0].Zone != "us-east-1a" || got[0].ZoneID == "" ||
		got[0].CapacityType != karpv1.CapacityTypeOnDemand || got[0].Reason != "LaunchFailed" {
		t.Errorf("launch failures measured %+v, want one on-demand in us-east-1a with its zone id, reason LaunchFailed", got)
	}
	types, err := env.p.InstanceTypes(ctx, testNodePool())
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := findOffering(types, failed); !ok || o.Available {
		t.Errorf("failed offering %+v right after the error, want unavailable", o)
	}
	if o, ok := findOffering(types, offering{karpv1.CapacityTypeOnDemand, "m5.large", "us-east-1b"}); !ok || !o.Available {
		t.Errorf("the same type in another zone %+v, want available", o)
	}

	// The retry (the engine's next solve) may use m5.large or m5.xlarge in us-east-1a.
	got, err := env.p.Create(ctx, testNodeClaim("retry", in(corev1.LabelInstanceTypeStable, "m5.large", "m5.xlarge"), zoneA, onDemand))
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if it := got.Labels[corev1.LabelInstanceTypeStable]; it != "m5.xlarge" {
		t.Errorf("retry launched %s, want m5.xlarge, the next cheapest offering", it)
	}
	req, out := env.ec2.last()
	if pools := overrides(req); strings.Join(pools, ",") != "m5.xlarge us-east-1a" {
		t.Errorf("retry offered %v, want only m5.xlarge us-east-1a (the failed offering left out)", pools)
	}
	if len(out.Errors) != 0 {
		t.Errorf("retry met errors %v, want none", out.Errors)
	}

	env.clk.Step(DefaultUnavailableFor)
	types, err = env.p.InstanceTypes(ctx, testNodePool())
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := findOffering(types, failed); !o.Available {
		t.Errorf("failed offering %+v after %s, want available again", o, DefaultUnavailableFor)
	}

	// The NodeClaim that failed, launched again: its client token is spent on a launch that got
	// nothing, so it stays an insufficient capacity error (the engine replaces the NodeClaim),
	// whether EC2 replays the first answer or refuses the token with another request.
	if _, err := env.p.Create(ctx, testNodeClaim("first", in(corev1.LabelInstanceTypeStable, "m5.large"), zoneA, onDemand)); !cloudprovider.IsInsufficientCapacity(err) {
		t.Errorf("the failed NodeClaim again: %v, want an insufficient capacity error", err)
	}
	env.em.ClearFaults()
	env.clk.Step(DefaultUnavailableFor)
	_, err = env.p.Create(ctx, testNodeClaim("first", in(corev1.LabelInstanceTypeStable, "m5.large", "m5.xlarge"), zoneA, onDemand))
	if !cloudprovider.IsInsufficientCapacity(err) || !strings.Contains(err.Error(), "client token") {
		t.Errorf("the failed NodeClaim with another request: %v, want an insufficient capacity error about its client token", err)
	}
	if n := len(env.instancesOf("first")); n != 0 {
		t.Errorf("%d instances for the failed NodeClaim", n)
	}
}

// TestEmulatorRestartBetweenLaunchAndRecord loses CreateFleet's answer (the process dies after
// EC2 launched), then starts a new provider against the same emulator and launches the same
// NodeClaim again: the client token makes EC2 answer with the first instance, and no second one
// exists. A retry whose request differs (prices moved) finds the instance by its tag.
func TestEmulatorRestartBetweenLaunchAndRecord(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	claim := testNodeClaim("survivor", in(corev1.LabelInstanceTypeStable, "m5.large", "c5.large"))

	env.ec2.crash = true
	if _, err := env.p.Create(ctx, claim); err == nil {
		t.Fatal("create through the crashing client succeeded")
	}
	launched := env.instancesOf("survivor")
	if len(launched) != 1 {
		t.Fatalf("instances after the crash: %+v, want the one EC2 launched", launched)
	}

	restarted := env.newProvider(t, Clients{EC2: env.clients.EC2.(*fleetRecorder).EC2API, SQS: env.clients.SQS, SSM: env.clients.SSM,
		Pricing: env.clients.Pricing, IAM: env.clients.IAM, Calls: env.clients.Calls})
	if _, err := restarted.InstanceTypes(ctx, testNodePool()); err != nil {
		t.Fatal(err)
	}
	before := env.clients.Calls.Counts()
	got, err := restarted.Create(ctx, claim)
	if err != nil {
		t.Fatalf("create after the restart: %v", err)
	}
	if d := diffCounts(before, env.clients.Calls.Counts()); d["ec2:DescribeInstances"] != 0 || d["ec2:CreateFleet"] != 1 {
		t.Errorf("the retry called %v, want one CreateFleet answered from its client token", d)
	}
	if want := "aws:///" + launched[0].Zone + "/" + launched[0].ID; got.Status.ProviderID != want {
		t.Errorf("after the restart the NodeClaim got %s, want the first launch's %s", got.Status.ProviderID, want)
	}
	if n := len(env.instancesOf("survivor")); n != 1 {
		t.Errorf("%d instances for the NodeClaim, want 1", n)
	}

	// A third process whose request differs: one offering has become unavailable meanwhile.
	third := env.newProvider(t, Clients{EC2: env.clients.EC2.(*fleetRecorder).EC2API, SQS: env.clients.SQS, SSM: env.clients.SSM,
		Pricing: env.clients.Pricing, IAM: env.clients.IAM, Calls: env.clients.Calls})
	third.unavailable.mark(offering{karpv1.CapacityTypeSpot, "c5.large", "us-east-1c"})
	if _, err := third.InstanceTypes(ctx, testNodePool()); err != nil {
		t.Fatal(err)
	}
	before = env.clients.Calls.Counts()
	got, err = third.Create(ctx, claim)
	if err != nil {
		t.Fatalf("create with a different request: %v", err)
	}
	if d := diffCounts(before, env.clients.Calls.Counts()); d["ec2:DescribeInstances"] != 1 {
		t.Errorf("the differing retry called %v, want CreateFleet refused (IdempotentParameterMismatch) then DescribeInstances", d)
	}
	if want := "aws:///" + launched[0].Zone + "/" + launched[0].ID; got.Status.ProviderID != want {
		t.Errorf("a differing retry got %s, want the first launch's %s", got.Status.ProviderID, want)
	}
	if n := len(env.instancesOf("survivor")); n != 1 {
		t.Errorf("%d instances for the NodeClaim after a differing retry, want 1", n)
	}

	// Deleting a NodeClaim whose launch was never recorded finds its instance by tag.
	if err := third.Delete(ctx, claim); err != nil {
		t.Errorf("delete without a provider ID: %v", err)
	}
	if n := len(env.instancesOf("survivor")); n != 0 {
		t.Errorf("%d instances left for the deleted NodeClaim", n)
	}
	if err := third.Delete(ctx, claim); !cloudprovider.IsNodeClaimNotFound(err) {
		t.Errorf("second delete without a provider ID: %v, want NodeClaimNotFound", err)
	}
}

func TestEmulatorDeleteAndGet(t *testing.T) {
	env := startEmulator(t, func(c *emulator.Config) { c.ShutdownDelay = 5 * time.Second })
	ctx := context.Background()
	var claims []*karpv1.NodeClaim
	for _, name := range []string{"a", "b", "c", "d"} {
		c, err := env.p.Create(ctx, testNodeClaim(name, in(corev1.LabelInstanceTypeStable, "m5.large")))
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c)
	}
	// The deletes meet in one batch window however slowly their goroutines start: the tests'
	// 10 ms is too short under the race detector on a busy machine.
	cfg := env.cfg
	cfg.TerminateBatchWindow = time.Second
	p, err := New(env.clients, cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := env.clients.Calls.Counts()
	var wg sync.WaitGroup
	errs := make([]error, len(claims))
	for i, c := range claims {
		wg.Go(func() { errs[i] = p.Delete(ctx, c) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("delete %s: %v", claims[i].Name, err)
		}
	}
	if d := diffCounts(before, env.clients.Calls.Counts()); d["ec2:TerminateInstances"] != 1 {
		t.Errorf("4 concurrent deletes called %v, want one batched TerminateInstances", d)
	}
	// Karpenter's batcher metrics see one batch of four, under Karpenter's batcher name.
	if got := env.measured.Of(journal.MeasureBatchSize); len(got) != 1 || got[0].Value != 4 || got[0].Batcher != "terminate_instances" {
		t.Errorf("batches measured %+v, want one of 4 terminate_instances", got)
	}
	if got := env.measured.Of(journal.MeasureBatchTime); len(got) != 1 || got[0].Value <= 0 {
		t.Errorf("batch windows measured %+v, want one", got)
	}
	// Every launch rendered the node class's user data, and measured its decoded size.
	if got := env.measured.Of(journal.MeasureUserDataBytes); len(got) == 0 || got[0].NodeClass != "default" || got[0].Value < 100 {
		t.Errorf("user data measured %+v, want the default node class's size", got)
	}
	// User data is measured before the template is made, as Karpenter measures it: one EC2
	// refuses (too large, say) is measured too.
	if err := env.em.FailNext("CreateLaunchTemplate", 1, "InvalidParameterValue"); err != nil {
		t.Fatal(err)
	}
	measured := len(env.measured.Of(journal.MeasureUserDataBytes))
	refused := &launchConfig{ImageID: "ami-refused", UserData: base64.StdEncoding.EncodeToString([]byte("#!/bin/sh")), NodeClass: "refused"}
	if _, err := env.p.launchTemplate(ctx, refused); err == nil {
		t.Error("a launch template EC2 refused was taken as made")
	}
	if got := env.measured.Of(journal.MeasureUserDataBytes); len(got) != measured+1 || got[measured].NodeClass != "refused" || got[measured].Value != 9 {
		t.Errorf("user data measured %+v, want the refused template's 9 bytes last", got)
	}
	// A termination EC2 refuses is counted where the instance is.
	if err := env.em.FailNext("TerminateInstances", 1, "InternalError"); err != nil {
		t.Fatal(err)
	}
	if err := env.p.Delete(ctx, claims[1]); err == nil {
		t.Fatal("delete with EC2 failing: no error")
	}
	zone := claims[1].Labels[corev1.LabelTopologyZone]
	if got := env.measured.Of(journal.MeasureTerminationFailure); len(got) != 1 || got[0].Zone != zone || got[0].ZoneID != claims[1].Labels[awsv1.LabelTopologyZoneID] || got[0].ZoneID == "" {
		t.Errorf("termination failures measured %+v, want one in %s with its zone id", got, zone)
	}
	got, err := env.p.Get(ctx, claims[0].Status.ProviderID)
	if err != nil || got.DeletionTimestamp == nil {
		t.Errorf("get while shutting down: %+v, %v; want a deletion timestamp", got, err)
	}
	if err := env.p.Delete(ctx, claims[0]); err != nil {
		t.Errorf("delete while shutting down: %v, want nil (not gone yet)", err)
	}
	env.clk.Step(10 * time.Second)
	if err := env.p.Delete(ctx, claims[0]); !cloudprovider.IsNodeClaimNotFound(err) {
		t.Errorf("delete once terminated: %v, want NodeClaimNotFound", err)
	}
	if _, err := env.p.Get(ctx, claims[0].Status.ProviderID); !cloudprovider.IsNodeClaimNotFound(err) {
		t.Errorf("get once terminated: %v, want NodeClaimNotFound", err)
	}
	if list, err := env.p.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("list once terminated: %d, %v; want none", len(list), err)
	}
	unknown := *claims[0]
	unknown.Status.ProviderID = "aws:///us-east-1a/i-0123456789abcdef0"
	if err := env.p.Delete(ctx, &unknown); !cloudprovider.IsNodeClaimNotFound(err) {
		t.Errorf("delete of an unknown instance: %v, want NodeClaimNotFound", err)
	}
}

func TestEmulatorGarbageCollection(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	kept, err := env.p.Create(ctx, testNodeClaim("kept", in(corev1.LabelInstanceTypeStable, "m5.large")))
	if err != nil {
		t.Fatal(err)
	}
	leaked, err := env.p.Create(ctx, testNodeClaim("leaked", in(corev1.LabelInstanceTypeStable, "m5.large")))
	if err != nil {
		t.Fatal(err)
	}
	launching := testNodeClaim("launching", in(corev1.LabelInstanceTypeStable, "m5.large"))
	if _, err := env.p.Create(ctx, launching); err != nil {
		t.Fatal(err)
	}
	// "launching" exists but has no provider ID yet (its status was not written): it is claimed.
	claims := []*karpv1.NodeClaim{kept, launching}
	if records, err := env.p.CollectGarbage(ctx, claims); err != nil || len(records) != 0 {
		t.Fatalf("within the grace period: %+v, %v; want nothing", records, err)
	}
	env.clk.Step(DefaultGCGracePeriod)
	records, err := env.p.CollectGarbage(ctx, claims)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 1 || records[0].ProviderID != leaked.Status.ProviderID || records[0].NodeClaim != "leaked" ||
		records[0].NodePool != "default" || !strings.Contains(records[0].Reason, "does not exist") {
		t.Fatalf("records %+v, want the leaked instance, with its reason", records)
	}
	t.Logf("GC record: %s", records[0].Reason)
	if n := len(env.instancesOf("leaked")); n != 0 {
		t.Errorf("leaked instance still running")
	}
	if len(env.instancesOf("kept")) != 1 || len(env.instancesOf("launching")) != 1 {
		t.Errorf("claimed instances were terminated")
	}
}

func TestEmulatorDrift(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	claim, err := env.p.Create(ctx, testNodeClaim("drifter", in(corev1.LabelInstanceTypeStable, "m5.large")))
	if err != nil {
		t.Fatal(err)
	}
	var otherSubnet string
	for _, s := range env.em.Subnets() {
		if s.Zone != claim.Labels[corev1.LabelTopologyZone] {
			otherSubnet = s.ID
		}
	}
	tests := []struct {
		name   string
		change func(*awsv1.EC2NodeClass)
		want   cloudprovider.DriftReason
	}{
		{"unchanged", func(*awsv1.EC2NodeClass) {}, ""},
		{"spec changed", func(nc *awsv1.EC2NodeClass) { nc.Spec.Tags["team"] = "payments" }, DriftNodeClass},
		{"AMI no longer selected", func(nc *awsv1.EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "al2023@v20991231" }, DriftAMI},
		{"subnet no longer selected", func(nc *awsv1.EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{ID: otherSubnet}}
		}, DriftSubnet},
		{"other security groups", func(nc *awsv1.EC2NodeClass) {
			nc.Spec.SecurityGroupSelectorTerms = append(nc.Spec.SecurityGroupSelectorTerms, awsv1.SecurityGroupSelectorTerm{Name: "default"})
		}, DriftSecurityGroup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := emulatorNodeClass()
			tt.change(nc)
			env.store.put(nc)
			env.clk.Step(DefaultSelectorTTL)
			got, err := env.p.IsDrifted(ctx, claim)
			if tt.want == DriftAMI {
				// An alias of a release the emulator lacks resolves to nothing: the AMIs are not
				// ready, which IsDrifted reports as an error rather than drift.
				if err == nil && got != DriftAMI {
					t.Errorf("drift %q, %v; want AMIDrift or an error", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("drift %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// An AMI that resolves but is another image: the custom AMIs.
	nc := emulatorNodeClass()
	nc.Spec.AMIFamily = ptr.To(awsv1.AMIFamilyAL2023)
	nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Tags: map[string]string{"team": "platform"}}}
	env.store.put(nc)
	env.clk.Step(DefaultSelectorTTL)
	if got, err := env.p.IsDrifted(ctx, claim); err != nil || (got != DriftAMI && got != DriftNodeClass) {
		t.Errorf("drift after an AMI change: %q, %v; want AMIDrift", got, err)
	}
}

func TestEmulatorPermissionDeniedIsOneClearError(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	var logged strings.Builder
	if err := env.em.FailNext("DescribeSubnets", 3, "UnauthorizedOperation"); err != nil {
		t.Fatal(err)
	}
	// A recorder that logs to a buffer, installed through a fresh set of clients.
	cfg := testSDKConfig(t, env.em.HTTPClient())
	clients := NewClients(cfg, Endpoints{}.All(env.em.Endpoint()), slogTo(&logged))
	p := env.newProvider(t, clients)
	var perr *PermissionError
	for range 3 {
		env.clk.Step(DefaultSelectorTTL)
		_, err := p.Create(ctx, testNodeClaim("denied"))
		if !errors.As(err, &perr) || perr.Action != "ec2:DescribeSubnets" || !strings.Contains(err.Error(), PolicyFile) {
			t.Fatalf("create: %v, want a permission error naming ec2:DescribeSubnets and %s", err, PolicyFile)
		}
	}
	if n := strings.Count(logged.String(), "AWS denied"); n != 1 {
		t.Errorf("the denial was logged %d times, want once:\n%s", n, logged.String())
	}
	if d := p.Status().Denied; len(d) != 1 || d[0] != "ec2:DescribeSubnets" {
		t.Errorf("status denied %v, want [ec2:DescribeSubnets]", d)
	}
}

func TestEmulatorThrottlingIsRetried(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	cfg, err := LoadConfig(ctx, ConfigOptions{Region: testRegion, Credentials: testSDKConfig(t, nil).Credentials, MaxAttempts: 5,
		HTTPClient: env.em.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	p := env.newProvider(t, NewClients(cfg, Endpoints{}.All(env.em.Endpoint()), quietLog()))
	if err := env.em.InjectThrottle(emulator.Throttle{Operation: "DescribeSubnets", Next: 2}); err != nil {
		t.Fatal(err)
	}
	st := p.NodeClassStatus(ctx, emulatorNodeClass())
	if len(st.Subnets) != 3 {
		t.Errorf("subnets %+v after two throttled calls, want the SDK's retries to get all 3", st.Subnets)
	}
	if n := env.em.CallCounts()["DescribeSubnets"]; n != 3 {
		t.Errorf("DescribeSubnets reached the emulator %d times, want 3 (two throttled, one answered)", n)
	}
}

// slogTo is a logger writing text lines to w.
func slogTo(w *strings.Builder) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// TestEmulatorInterruptions injects each interruption kind and expects the right engine event,
// with the instance's provider ID, and the message deleted; then an unparseable message (deleted
// without an event) and a handling failure (the message comes back and is deleted once handled).
func TestEmulatorInterruptions(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	launch := func(name, capacityType string) *karpv1.NodeClaim {
		t.Helper()
		c, err := env.p.Create(ctx, testNodeClaim(name, in(corev1.LabelInstanceTypeStable, "m5.large"), in(karpv1.CapacityTypeLabelKey, capacityType)))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	spot, spot2 := launch("spot", karpv1.CapacityTypeSpot), launch("spot-2", karpv1.CapacityTypeSpot)
	od, od2 := launch("on-demand", karpv1.CapacityTypeOnDemand), launch("on-demand-2", karpv1.CapacityTypeOnDemand)
	idOf := func(c *karpv1.NodeClaim) string { id, _ := instanceID(c.Status.ProviderID); return id }

	events := make(chan cloudprovider.Interruption, 20)
	var failNext atomic.Bool
	handle := func(_ context.Context, e cloudprovider.Interruption) error {
		events <- e
		if failNext.CompareAndSwap(true, false) {
			return errors.New("the engine is busy")
		}
		return nil
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- env.p.Interruptions("test").Run(runCtx, handle) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("the queue stopped with %v, want context.Canceled", err)
		}
	})
	deletes := func() int { return env.em.CallCounts()["DeleteMessage"] }
	waitDeletes := func(want int) {
		t.Helper()
		eventually.True(t, 10*time.Second, fmt.Sprintf("%d messages deleted", want), func(context.Context) (bool, string) {
			return deletes() >= want, fmt.Sprintf("%d deleted", deletes())
		})
	}
	receive := func() cloudprovider.Interruption {
		t.Helper()
		select {
		case e := <-events:
			return e
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10s")
			return cloudprovider.Interruption{}
		}
	}

	type want struct {
		kind   cloudprovider.InterruptionKind
		detail string
		drain  bool
	}
	tests := []struct {
		name   string
		inject emulator.Interruption
		claim  *karpv1.NodeClaim
		want   []want
	}{
		{"spot interruption", emulator.Interruption{Kind: emulator.SpotInterruption, InstanceID: idOf(spot)}, spot,
			[]want{{cloudprovider.SpotInterruption, "terminate", true}}},
		{"rebalance recommendation", emulator.Interruption{Kind: emulator.RebalanceRecommendation, InstanceID: idOf(spot2)}, spot2,
			[]want{{cloudprovider.RebalanceRecommendation, "", false}}},
		{"scheduled change", emulator.Interruption{Kind: emulator.ScheduledChange, InstanceID: idOf(od)}, od,
			[]want{{cloudprovider.ScheduledChange, "", true}}},
		{"capacity reservation interruption", emulator.Interruption{Kind: emulator.CapacityReservationInterruption, InstanceID: idOf(od2)}, od2,
			[]want{{cloudprovider.CapacityReservationInterruption, "terminate", true}}},
		{"state change", emulator.Interruption{Kind: emulator.StateChange, InstanceID: idOf(spot2), State: "stopping"}, spot2,
			[]want{{cloudprovider.StateChange, "stopping", true}, {cloudprovider.StateChange, "stopped", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deletes()
			if err := env.em.Interrupt(tt.inject); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				e := receive()
				if e.Kind != w.kind || e.Drain != w.drain || e.InstanceID != tt.inject.InstanceID || e.ProviderID != tt.claim.Status.ProviderID ||
					(w.detail != "" && e.Detail != w.detail) {
					t.Errorf("event %+v, want %s of %s (drain %v, detail %q)", e, w.kind, tt.claim.Status.ProviderID, w.drain, w.detail)
				}
			}
			waitDeletes(before + len(tt.want))
		})
	}

	t.Run("a spot interruption makes its offering unavailable", func(t *testing.T) {
		types, err := env.p.InstanceTypes(ctx, testNodePool())
		if err != nil {
			t.Fatal(err)
		}
		o := offering{karpv1.CapacityTypeSpot, "m5.large", spot.Labels[corev1.LabelTopologyZone]}
		if of, ok := findOffering(types, o); !ok || of.Available {
			t.Errorf("offering %s: %+v, want unavailable", o, of)
		}
	})

	t.Run("an unparseable message is deleted without an event", func(t *testing.T) {
		before := deletes()
		_, err := env.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: sdkaws.String(env.em.QueueURL()), MessageBody: sdkaws.String("{not an event")})
		must(t, err)
		waitDeletes(before + 1)
		select {
		case e := <-events:
			t.Errorf("event %+v from an unparseable message", e)
		default:
		}
	})

	t.Run("a failed handling is delivered again", func(t *testing.T) {
		before := deletes()
		failNext.Store(true)
		if err := env.em.Interrupt(emulator.Interruption{Kind: emulator.RebalanceRecommendation, InstanceID: idOf(od)}); err != nil {
			t.Fatal(err)
		}
		receives := env.em.CallCounts()["ReceiveMessage"]
		if e := receive(); e.Kind != cloudprovider.RebalanceRecommendation {
			t.Fatalf("event %+v", e)
		}
		// The queue is read by one loop: its next poll means it is done with the failed message.
		eventually.True(t, 10*time.Second, "the queue's next poll after the failed handling", func(context.Context) (bool, string) {
			return env.em.CallCounts()["ReceiveMessage"] > receives, ""
		})
		if n := deletes(); n != before {
			t.Fatalf("a message whose handling failed was deleted")
		}
		env.clk.Step(31 * time.Second) // past the queue's 30 s visibility timeout
		if e := receive(); e.Kind != cloudprovider.RebalanceRecommendation || e.ProviderID != od.Status.ProviderID {
			t.Fatalf("redelivered event %+v", e)
		}
		waitDeletes(before + 1)
	})

	// The engine then matches the event by instance ID (interruption.TestHandleActsPerKind).
	t.Run("an instance that cannot be looked up goes out by its instance id", func(t *testing.T) {
		before := deletes()
		must(t, env.em.FailNext("DescribeInstances", 1, "UnauthorizedOperation"))
		must(t, env.em.Interrupt(emulator.Interruption{Kind: emulator.ScheduledChange, InstanceID: idOf(od2)}))
		if e := receive(); e.Kind != cloudprovider.ScheduledChange || e.InstanceID != idOf(od2) || e.ProviderID != "" {
			t.Errorf("event %+v, want a scheduled change of %s without a provider id", e, idOf(od2))
		}
		waitDeletes(before + 1)
		if n := env.em.CallCounts()["DescribeInstances"]; n == 0 {
			t.Errorf("DescribeInstances was never called")
		}
	})
}

// BenchmarkLaunch measures Create, from a NodeClaim to a running instance, against the emulator
// with no boot delay and no call latency: the provider's work plus one CreateFleet round trip.
func BenchmarkLaunch(b *testing.B) {
	env := startEmulator(b, func(c *emulator.Config) { c.FreeAddresses = 1 << 20 })
	ctx := context.Background()
	reqs := []karpv1.NodeSelectorRequirementWithMinValues{in(corev1.LabelArchStable, "amd64"), in(awsv1.LabelInstanceCPU, "2", "4")}
	if _, err := env.p.Create(ctx, testNodeClaim("warm-up", reqs...)); err != nil {
		b.Fatal(err)
	}
	claims := make([]*karpv1.NodeClaim, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		c, err := env.p.Create(ctx, testNodeClaim("bench-"+strconv.Itoa(i), reqs...))
		if err != nil {
			b.Fatal(err)
		}
		claims = append(claims, c)
		i++
	}
	b.StopTimer()
	running := map[string]bool{}
	for _, inst := range env.em.Instances() {
		running[inst.ID] = inst.State == "running"
	}
	for _, c := range claims {
		if id, _ := instanceID(c.Status.ProviderID); !running[id] {
			b.Fatalf("%s is not running", c.Status.ProviderID)
		}
	}
}

// TestEmulatorRepeatedFailuresAreLoggedOnce fails the Pricing API on two refreshes in a row: one
// warning, not one per retry.
func TestEmulatorRepeatedFailuresAreLoggedOnce(t *testing.T) {
	env := startEmulator(t, nil)
	var logged strings.Builder
	opts := env.cfg
	opts.Log = slogTo(&logged)
	p, err := New(env.clients, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.em.FailNext("GetProducts", 2, "InternalError"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := p.Refresh(context.Background()); err == nil {
			t.Fatal("refresh succeeded with the Pricing API failing")
		}
	}
	if n := strings.Count(logged.String(), "refreshing from AWS failed"); n != 1 {
		t.Errorf("%d warnings for one repeated failure, want 1:\n%s", n, logged.String())
	}
}

// TestEmulatorConcurrentLaunchesShareOneInstanceProfile launches several NodeClaims of a new
// EC2NodeClass at once, as a provisioning batch does: every launch succeeds, and the node class's
// instance profile is created and given its role once.
func TestEmulatorConcurrentLaunchesShareOneInstanceProfile(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	if _, err := env.p.InstanceTypes(ctx, testNodePool()); err != nil {
		t.Fatal(err)
	}
	const launches = 8
	errs := make([]error, launches)
	var wg sync.WaitGroup
	for i := range launches {
		wg.Go(func() {
			_, errs[i] = env.p.Create(ctx, testNodeClaim("default-"+strconv.Itoa(i), in(corev1.LabelArchStable, "amd64")))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent launches failed: %v", err)
	}
	calls := env.em.CallCounts()
	if calls["CreateInstanceProfile"] != 1 || calls["AddRoleToInstanceProfile"] != 1 {
		t.Errorf("CreateInstanceProfile called %d times, AddRoleToInstanceProfile %d; want 1 each",
			calls["CreateInstanceProfile"], calls["AddRoleToInstanceProfile"])
	}
}

// TestEmulatorDriftChecksShareOneListing checks every NodeClaim's drift for one DescribeInstances
// per DriftListTTL: the cluster's instance list serves them, and an instance launched after it was
// taken is described on its own.
func TestEmulatorDriftChecksShareOneListing(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	var claims []*karpv1.NodeClaim
	launch := func(name string) {
		c, err := env.p.Create(ctx, testNodeClaim(name, in(corev1.LabelInstanceTypeStable, "m5.large")))
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c)
	}
	for i := range 5 {
		launch("drift-" + strconv.Itoa(i))
	}
	checkAll := func() int64 {
		t.Helper()
		before := env.clients.Calls.Counts()
		for _, c := range claims {
			if got, err := env.p.IsDrifted(ctx, c); err != nil || got != "" {
				t.Fatalf("drift of %s: %q, %v; want none", c.Name, got, err)
			}
		}
		return diffCounts(before, env.clients.Calls.Counts())["ec2:DescribeInstances"]
	}
	if n := checkAll(); n != 1 {
		t.Errorf("checking 5 NodeClaims called DescribeInstances %d times, want 1", n)
	}
	launch("drift-late")
	if n := checkAll(); n != 1 {
		t.Errorf("checking again with one new instance called DescribeInstances %d times, want 1 (the new one)", n)
	}
	env.clk.Step(DriftListTTL)
	if n := checkAll(); n != 1 {
		t.Errorf("checking 6 NodeClaims after %v called DescribeInstances %d times, want 1", DriftListTTL, n)
	}
}

// TestEmulatorLaunchLabels: a NodeClaim may select on every well-known label Karpenter sets,
// and its node carries them: the CPU's maker and clock, EBS bandwidth, NVMe instance store,
// encryption in transit, flex capability, and the tenancy it launched with (dedicated only when
// nothing else is allowed, as Karpenter picks it).
func TestEmulatorLaunchLabels(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	if _, err := env.p.InstanceTypes(ctx, testNodePool()); err != nil {
		t.Fatal(err)
	}
	_ = env.p.NodeClassStatus(ctx, emulatorNodeClass())
	exists := func(key string) karpv1.NodeSelectorRequirementWithMinValues {
		return karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpExists}
	}
	for i, tc := range []struct {
		name    string
		reqs    []karpv1.NodeSelectorRequirementWithMinValues
		labels  map[string]string // exact values
		present []string          // labels that must be set
		tenancy string            // the instance's
	}{
		{"an AMD type with an NVMe store", []karpv1.NodeSelectorRequirementWithMinValues{in(awsv1.LabelInstanceCPUManufacturer, "amd"), exists(awsv1.LabelInstanceLocalNVME)},
			map[string]string{awsv1.LabelInstanceCPUManufacturer: "amd", awsv1.LabelInstanceTenancy: "default", awsv1.LabelInstanceCapabilityFlex: "false",
				awsv1.LabelInstanceEncryptionInTransitSupported: "true"},
			[]string{awsv1.LabelInstanceLocalNVME, awsv1.LabelInstanceCPUSustainedClockSpeedMhz, awsv1.LabelInstanceEBSBandwidth}, "default"},
		{"a flex type", []karpv1.NodeSelectorRequirementWithMinValues{in(awsv1.LabelInstanceCapabilityFlex, "true")},
			map[string]string{awsv1.LabelInstanceCapabilityFlex: "true"}, nil, "default"},
		{"dedicated only", []karpv1.NodeSelectorRequirementWithMinValues{in(awsv1.LabelInstanceTenancy, "dedicated"), in(awsv1.LabelInstanceCPU, "4")},
			map[string]string{awsv1.LabelInstanceTenancy: "dedicated"}, nil, "dedicated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("labels-%d", i)
			got, err := env.p.Create(ctx, testNodeClaim(name, append(tc.reqs, in(corev1.LabelArchStable, "amd64"))...))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.labels {
				if got.Labels[k] != v {
					t.Errorf("label %s=%q, want %q (type %s)", k, got.Labels[k], v, got.Labels[corev1.LabelInstanceTypeStable])
				}
			}
			for _, k := range tc.present {
				if got.Labels[k] == "" {
					t.Errorf("label %s missing (type %s)", k, got.Labels[corev1.LabelInstanceTypeStable])
				}
			}
			if insts := env.instancesOf(name); len(insts) != 1 || insts[0].Tenancy != tc.tenancy {
				t.Errorf("instances %+v, want one of tenancy %s", insts, tc.tenancy)
			}
		})
	}
}

// TestEmulatorKnownInstanceTypes: what a scrape or the console reads are the types the loops last
// got, and reading them calls AWS never.
func TestEmulatorKnownInstanceTypes(t *testing.T) {
	env := startEmulator(t, nil)
	np := testNodePool()
	if got := env.p.KnownInstanceTypes(np); got != nil {
		t.Fatalf("%d types known before any was built", len(got))
	}
	types, err := env.p.InstanceTypes(context.Background(), np)
	if err != nil {
		t.Fatal(err)
	}
	before := env.clients.Calls.Counts()
	known := env.p.KnownInstanceTypes(np)
	if calls := diffCounts(before, env.clients.Calls.Counts()); len(calls) != 0 {
		t.Errorf("reading the known types called %v", calls)
	}
	if len(known) == 0 || len(known) != len(types) || known[0] != types[0] {
		t.Errorf("%d types known, want the %d built", len(known), len(types))
	}
}

// TestEmulatorInstanceProfilesAsKarpenterMakesThem: a profile status.instanceProfile names that
// holds the role is kept (one Karpenter made, after a move); a new role gets a new profile, made
// under the node class's path with Karpenter's tags; deleting the node class deletes every
// profile under its path and the one an earlier nodepilot made, and leaves the user's alone.
func TestEmulatorInstanceProfilesAsKarpenterMakesThem(t *testing.T) {
	env := startEmulator(t, nil)
	ctx := context.Background()
	iamc := env.clients.IAM
	nc := emulatorNodeClass()
	path := "/karpenter/" + testRegion + "/test/" + string(nc.UID) + "/"
	makeProfile := func(name, path, role string) {
		t.Helper()
		if _, err := iamc.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: sdkaws.String(name), Path: sdkaws.String(path)}); err != nil {
			t.Fatal(err)
		}
		if _, err := iamc.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: sdkaws.String(name), RoleName: sdkaws.String(role)}); err != nil {
			t.Fatal(err)
		}
	}
	makeProfile("test_1234567", path, "KarpenterNodeRole")                     // Karpenter's, for this node class
	makeProfile(env.p.legacyInstanceProfileName(nc), "/", "KarpenterNodeRole") // an earlier nodepilot's
	makeProfile("user-profile", "/", "KarpenterNodeRole")                      // the user's own

	nc.Status.InstanceProfile = "test_1234567"
	before := env.em.CallCounts()["CreateInstanceProfile"]
	if st := env.p.NodeClassStatus(ctx, nc); st.InstanceProfile != "test_1234567" {
		t.Errorf("status names %q, want Karpenter's test_1234567 kept", st.InstanceProfile)
	}
	if n := env.em.CallCounts()["CreateInstanceProfile"] - before; n != 0 {
		t.Errorf("%d profiles created for a node class whose profile holds its role", n)
	}

	moved := nc.DeepCopy()
	moved.Spec.Role = "eks-karpenter-node-role"
	st := env.p.NodeClassStatus(ctx, moved)
	if want := env.p.InstanceProfileName(moved); st.InstanceProfile != want || want == "test_1234567" {
		t.Fatalf("status after a role change names %q, want a new profile %q", st.InstanceProfile, want)
	}
	got, err := iamc.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: sdkaws.String(st.InstanceProfile)})
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]string{}
	for _, tag := range got.InstanceProfile.Tags {
		tags[sdkaws.ToString(tag.Key)] = sdkaws.ToString(tag.Value)
	}
	if sdkaws.ToString(got.InstanceProfile.Path) != path || sdkaws.ToString(got.InstanceProfile.Roles[0].RoleName) != "eks-karpenter-node-role" ||
		tags["kubernetes.io/cluster/test"] != "owned" || tags[awsv1.TagKeyEKSClusterName] != "test" || tags[awsv1.TagKeyNodeClass] != "default" ||
		tags[corev1.LabelTopologyRegion] != testRegion || tags["team"] != "platform" {
		t.Errorf("new profile at %q with roles %v and tags %v, want Karpenter's path, the new role and tags", sdkaws.ToString(got.InstanceProfile.Path),
			got.InstanceProfile.Roles, tags)
	}

	if err := env.p.DeleteInstanceProfile(ctx, moved); err != nil {
		t.Fatal(err)
	}
	list, err := iamc.ListInstanceProfiles(ctx, &iam.ListInstanceProfilesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, ip := range list.InstanceProfiles {
		left = append(left, sdkaws.ToString(ip.InstanceProfileName))
	}
	if want := []string{"KarpenterNodeInstanceProfile", "user-profile"}; !slices.Equal(left, want) {
		t.Errorf("profiles left %v, want %v", left, want)
	}
}
