package aws

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
)

// testRegion is the region of both AWS test tiers.
const testRegion = "us-east-1"

// nodeClassStore is the tests' EC2NodeClass lookup.
type nodeClassStore struct {
	mu      sync.Mutex
	classes map[string]*awsv1.EC2NodeClass
}

func (s *nodeClassStore) put(nc *awsv1.EC2NodeClass) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.classes == nil {
		s.classes = map[string]*awsv1.EC2NodeClass{}
	}
	s.classes[nc.Name] = nc.DeepCopy()
}

func (s *nodeClassStore) get(_ context.Context, name string) (*awsv1.EC2NodeClass, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if nc, ok := s.classes[name]; ok {
		return nc.DeepCopy(), nil
	}
	return nil, nil
}

// testSDKConfig is an SDK configuration with static credentials, the test region and no
// retries, so that injected faults fail at once; httpClient nil means the SDK's.
func testSDKConfig(t testing.TB, httpClient sdkaws.HTTPClient) sdkaws.Config {
	t.Helper()
	cfg, err := LoadConfig(context.Background(), ConfigOptions{
		Region:         testRegion,
		Credentials:    credentials.NewStaticCredentialsProvider("AKIATEST", "secret", ""),
		DisableRetries: true,
		HTTPClient:     httpClient,
	})
	if err != nil {
		t.Fatalf("loading the SDK configuration: %v", err)
	}
	return cfg
}

// liveAct is a live executor's Do, without a journal: the provider's own writes are performed.
func liveAct(c clock.Clock) func(context.Context, executor.Action, func(context.Context) error) error {
	return executor.New(executor.Live, nil, nil, nil, c).Do
}

// quietLog discards the provider's warnings in tests that provoke them.
func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testProvider is a provider over clients with a fake clock at the real time (instances
// carry real launch times).
func testProvider(t testing.TB, clients Clients, store *nodeClassStore) (*Provider, *testingclock.FakeClock) {
	t.Helper()
	clk := testingclock.NewFakeClock(time.Now())
	p, err := New(clients, Options{
		ClusterName:       "test",
		Region:            testRegion,
		KubernetesVersion: "1.31",
		ClusterEndpoint:   "https://127.0.0.1:6443",
		ClusterCABundle:   "Y2E=",
		NodeClass:         store.get,
		Clock:             clk,
		Log:               quietLog(),
		Act:               liveAct(clk),
		// Terminations are batched over a short window, not to slow the tests down.
		TerminateBatchWindow: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("new provider: %v", err)
	}
	return p, clk
}

// testNodeClaim is a NodeClaim of NodePool "default" for node class "default".
func testNodeClaim(name string, reqs ...karpv1.NodeSelectorRequirementWithMinValues) *karpv1.NodeClaim {
	nc := &karpv1.NodeClaim{}
	nc.Name = name
	nc.UID = types.UID("uid-" + name)
	nc.Labels = map[string]string{karpv1.NodePoolLabelKey: "default"}
	nc.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: awsv1.Group, Kind: "EC2NodeClass", Name: "default"}
	nc.Spec.Requirements = reqs
	return nc
}

// in is a requirement that key is one of values.
func in(key string, values ...string) karpv1.NodeSelectorRequirementWithMinValues {
	return karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
}

// testNodePool is NodePool "default" for node class "default".
func testNodePool() *karpv1.NodePool {
	np := &karpv1.NodePool{}
	np.Name = "default"
	np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: awsv1.Group, Kind: "EC2NodeClass", Name: "default"}
	return np
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func findOffering(types []*cloudprovider.InstanceType, o offering) (cloudprovider.Offering, bool) {
	for _, it := range types {
		if it.Name != o.instanceType {
			continue
		}
		for _, of := range it.Offerings {
			if of.Zone == o.zone && of.CapacityType == o.capacityType {
				return of, true
			}
		}
	}
	return cloudprovider.Offering{}, false
}

func diffCounts(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
