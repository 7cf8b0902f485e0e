package enginetest

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/internal/eventually"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// claim is a NodeClaim with a UID and the given requirements and CPU request.
func claim(name string, cpu string, reqs ...karpv1.NodeSelectorRequirementWithMinValues) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{karpv1.NodePoolLabelKey: "default"}},
		Spec: karpv1.NodeClaimSpec{
			Requirements: reqs,
			Resources:    karpv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
			Taints:       []corev1.Taint{{Key: "team", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
			NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: DefaultNodeClass},
		},
	}
}

func in(key string, values ...string) karpv1.NodeSelectorRequirementWithMinValues {
	return karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
}

func newTestCloud() (*clocktesting.FakeClock, *Cloud) {
	clk := clocktesting.NewFakeClock(testStart)
	return clk, NewCloud(clk, nil)
}

func TestCreateChoosesTheCheapestAllowedOffering(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		nc                     *karpv1.NodeClaim
		wantType, wantCapacity string
		wantZone               string
	}{
		{name: "spot when allowed", nc: claim("a", "1"), wantType: "c5.large", wantCapacity: "spot", wantZone: "us-east-1a"},
		{name: "on-demand when required", nc: claim("a", "1", in(karpv1.CapacityTypeLabelKey, "on-demand")),
			wantType: "m6g.large", wantCapacity: "on-demand", wantZone: "us-east-1a"},
		{name: "architecture and zone", nc: claim("a", "1", in(corev1.LabelArchStable, "amd64"), in(karpv1.CapacityTypeLabelKey, "on-demand"),
			in(corev1.LabelTopologyZone, "us-east-1c")),
			wantType: "c5.large", wantCapacity: "on-demand", wantZone: "us-east-1c"},
		{name: "requests must fit allocatable", nc: claim("a", "3", in(karpv1.CapacityTypeLabelKey, "on-demand"), in(corev1.LabelArchStable, "amd64")),
			wantType: "c5.xlarge", wantCapacity: "on-demand", wantZone: "us-east-1a"},
		{name: "instance types listed", nc: claim("a", "1", in(corev1.LabelInstanceTypeStable, "r5.large", "m5.xlarge"), in(karpv1.CapacityTypeLabelKey, "on-demand")),
			wantType: "r5.large", wantCapacity: "on-demand", wantZone: "us-east-1a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := newTestCloud()
			got, err := c.Create(t.Context(), tc.nc)
			if err != nil {
				t.Fatal(err)
			}
			l := got.Labels
			if l[corev1.LabelInstanceTypeStable] != tc.wantType || l[karpv1.CapacityTypeLabelKey] != tc.wantCapacity || l[corev1.LabelTopologyZone] != tc.wantZone {
				t.Errorf("launched %s %s in %s, want %s %s in %s", l[karpv1.CapacityTypeLabelKey], l[corev1.LabelInstanceTypeStable], l[corev1.LabelTopologyZone],
					tc.wantCapacity, tc.wantType, tc.wantZone)
			}
			if got.Status.ProviderID != "aws:///"+tc.wantZone+"/i-1" || l[karpv1.NodePoolLabelKey] != "default" || l[corev1.LabelOSStable] != "linux" ||
				l[corev1.LabelArchStable] == "" || l[corev1.LabelTopologyRegion] != "us-east-1" {
				t.Errorf("provider id %q, labels %v", got.Status.ProviderID, l)
			}
			if got.Status.Allocatable.Cpu().Cmp(*got.Status.Capacity.Cpu()) >= 0 || got.Status.Allocatable.Memory().IsZero() {
				t.Errorf("capacity %v allocatable %v", got.Status.Capacity, got.Status.Allocatable)
			}
			inst, ok := c.Instance(got.Status.ProviderID)
			if !ok || inst.NodeClaim != "a" || len(inst.Taints) != 1 || !inst.Running() {
				t.Errorf("instance %+v", inst)
			}
		})
	}
	_, c := newTestCloud()
	var ice *cloudprovider.InsufficientCapacityError
	if _, err := c.Create(t.Context(), claim("big", "100")); !errors.As(err, &ice) {
		t.Errorf("nothing fits: %v, want an insufficient capacity error", err)
	}
}

func TestCreateIsIdempotentPerNodeClaim(t *testing.T) {
	ctx := t.Context()
	_, c := newTestCloud()
	first, err := c.Create(ctx, claim("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Create(ctx, claim("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if again.Status.ProviderID != first.Status.ProviderID || c.Launches()["a"] != 1 || len(c.Instances()) != 1 {
		t.Fatalf("a retried create launched again: %s then %s, launches %v", first.Status.ProviderID, again.Status.ProviderID, c.Launches())
	}
	// The same name with another UID is another NodeClaim.
	other := claim("a", "1")
	other.UID = "uid-other"
	if _, err := c.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	if c.Launches()["a"] != 2 {
		t.Errorf("launches %v, want two for the name a", c.Launches())
	}
}

func TestCapacityErrorsMarkOfferingsUnavailable(t *testing.T) {
	ctx := t.Context()
	clk, c := newTestCloud()
	available := func(typ, zone, ct string) bool {
		types, err := c.InstanceTypes(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range types {
			for _, o := range it.Offerings {
				if it.Name == typ && o.Zone == zone && o.CapacityType == ct {
					return o.Available
				}
			}
		}
		t.Fatalf("no offering %s %s %s", typ, zone, ct)
		return false
	}

	// The cheapest offering fails: the next cheapest launches, and the failed one is unavailable.
	c.InjectInsufficientCapacity(OfferingKey{InstanceType: "c5.large", Zone: "us-east-1a", CapacityType: "spot"})
	got, err := c.Create(ctx, claim("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels[corev1.LabelInstanceTypeStable] == "c5.large" && got.Labels[corev1.LabelTopologyZone] == "us-east-1a" {
		t.Fatalf("launched the offering without capacity")
	}
	if available("c5.large", "us-east-1a", "spot") || !available("c5.large", "us-east-1b", "spot") {
		t.Fatal("the failed offering, and only it, should be unavailable")
	}

	// No spot at all: the launch fails with every spot offering it tried, which become unavailable.
	c.InjectInsufficientCapacity(OfferingKey{CapacityType: "spot"})
	_, err = c.Create(ctx, claim("b", "1", in(corev1.LabelInstanceTypeStable, "m5.large")))
	var ice *cloudprovider.InsufficientCapacityError
	if !errors.As(err, &ice) || !cloudprovider.IsInsufficientCapacity(err) || len(ice.Offerings) != 3 {
		t.Fatalf("error %v, want an insufficient capacity error naming the three spot offerings of m5.large", err)
	}
	if available("m5.large", "us-east-1b", "spot") || !available("m5.large", "us-east-1b", "on-demand") {
		t.Fatal("the failed spot offerings should be unavailable, on-demand not")
	}
	// The retry, with spot unavailable, launches on-demand.
	got, err = c.Create(ctx, claim("c", "1", in(corev1.LabelInstanceTypeStable, "m5.large")))
	if err != nil || got.Labels[karpv1.CapacityTypeLabelKey] != "on-demand" {
		t.Fatalf("retry: %v %v", err, got)
	}

	// Three minutes of clock time later the offerings are available again, and fail again.
	clk.Step(UnavailableFor - time.Second)
	if available("m5.large", "us-east-1b", "spot") {
		t.Fatal("available again too early")
	}
	clk.Step(time.Second)
	if !available("m5.large", "us-east-1b", "spot") {
		t.Fatal("still unavailable after UnavailableFor")
	}
	if _, err := c.Create(ctx, claim("d", "1", in(corev1.LabelInstanceTypeStable, "m5.large"))); !cloudprovider.IsInsufficientCapacity(err) {
		t.Fatalf("the shortage persists: %v", err)
	}
	c.ClearInsufficientCapacity()
	clk.Step(UnavailableFor)
	got, err = c.Create(ctx, claim("e", "1", in(corev1.LabelInstanceTypeStable, "m5.large")))
	if err != nil || got.Labels[karpv1.CapacityTypeLabelKey] != "spot" {
		t.Fatalf("after the shortage: %v %v", err, got)
	}
}

func TestDeleteGetListAndDrift(t *testing.T) {
	ctx := t.Context()
	clk, c := newTestCloud()
	a, err := c.Create(ctx, claim("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Minute)
	if _, err := c.Create(ctx, claim("b", "1")); err != nil {
		t.Fatal(err)
	}
	list, err := c.List(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "a" || !list[0].CreationTimestamp.Time.Equal(testStart) {
		t.Fatalf("list %v %v", list, err)
	}
	if got, err := c.Get(ctx, a.Status.ProviderID); err != nil || got.Name != "a" || got.Status.ProviderID != a.Status.ProviderID {
		t.Fatalf("get %v %v", got, err)
	}

	c.SetDrifted("a", "AMIDrift")
	if reason, err := c.IsDrifted(ctx, a); err != nil || reason != "AMIDrift" {
		t.Fatalf("drift %q %v", reason, err)
	}
	c.SetDrifted("a", "")
	if reason, _ := c.IsDrifted(ctx, a); reason != "" {
		t.Fatalf("drift %q after clearing", reason)
	}

	if err := c.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"delete again": c.Delete(ctx, a),
		"get":          func() error { _, err := c.Get(ctx, a.Status.ProviderID); return err }(),
		"drift":        func() error { _, err := c.IsDrifted(ctx, a); return err }(),
	} {
		if !cloudprovider.IsNodeClaimNotFound(err) {
			t.Errorf("%s after termination: %v, want not found", name, err)
		}
	}
	if list, _ := c.List(ctx); len(list) != 1 || list[0].Name != "b" {
		t.Errorf("list after termination: %v", list)
	}
	inst, _ := c.Instance(a.Status.ProviderID)
	if inst.State != InstanceTerminated || !inst.TerminatedAt.Equal(clk.Now()) {
		t.Errorf("instance %+v", inst)
	}

	// A NodeClaim that never recorded its launch is found by its name and UID.
	unrecorded := claim("b", "1")
	if err := c.Delete(ctx, unrecorded); err != nil {
		t.Fatalf("deleting an unrecorded launch: %v", err)
	}
	if list, _ := c.List(ctx); len(list) != 0 {
		t.Errorf("list %v, want empty", list)
	}

	c.FailNext("Delete", 1, nil)
	if err := c.Delete(ctx, a); !errors.Is(err, ErrInjected) {
		t.Errorf("injected: %v", err)
	}
}

func TestInterruptionsAreRedeliveredUntilHandled(t *testing.T) {
	ctx := t.Context()
	clk, c := newTestCloud()
	spot, err := c.Create(ctx, claim("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Interrupt(spot.Status.ProviderID, cloudprovider.SpotInterruption); err != nil {
		t.Fatal(err)
	}
	if err := c.Interrupt("aws:///us-east-1a/i-404", cloudprovider.SpotInterruption); err == nil {
		t.Error("interrupting an unknown instance succeeded")
	}
	failures := 1
	var handled []cloudprovider.Interruption
	handle := func(_ context.Context, ev cloudprovider.Interruption) error {
		if failures > 0 {
			failures--
			return errors.New("not now")
		}
		handled = append(handled, ev)
		return nil
	}
	if n := c.Poll(ctx, handle); n != 1 || len(handled) != 0 || c.Pending() != 1 {
		t.Fatalf("first poll delivered %d, handled %d, pending %d", n, len(handled), c.Pending())
	}
	if n := c.Poll(ctx, handle); n != 0 {
		t.Fatalf("a failed interruption came back before its redelivery delay")
	}
	clk.Step(c.RedeliveryDelay)
	if n := c.Poll(ctx, handle); n != 1 || len(handled) != 1 || c.Pending() != 0 {
		t.Fatalf("redelivery: delivered %d, handled %d, pending %d", n, len(handled), c.Pending())
	}
	ev := handled[0]
	if ev.Kind != cloudprovider.SpotInterruption || !ev.Drain || ev.ProviderID != spot.Status.ProviderID || ev.InstanceID != "i-1" ||
		!ev.Deadline.Equal(testStart.Add(SpotInterruptionWarning)) {
		t.Errorf("interruption %+v", ev)
	}
	if d := c.Deliveries(); len(d) != 2 || d[0].Err == nil || d[1].Attempt != 2 {
		t.Errorf("deliveries %+v", d)
	}

	// At the deadline the cloud takes the instance back and says so.
	clk.Step(SpotInterruptionWarning - c.RedeliveryDelay)
	if !c.Step(ctx) {
		t.Fatal("the spot instance was not reclaimed at its deadline")
	}
	if inst, _ := c.Instance(spot.Status.ProviderID); inst.Running() {
		t.Fatal("still running")
	}
	c.Poll(ctx, handle)
	if len(handled) != 2 || handled[1].Kind != cloudprovider.StateChange || handled[1].Detail != "terminated" {
		t.Errorf("after the reclaim: %+v", handled)
	}
}

func TestRunWaitsOnTheClockToRedeliver(t *testing.T) {
	clk, c := newTestCloud()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got, err := c.Create(ctx, claim("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	calls := make(chan int, 10)
	n := 0
	done := make(chan error, 1)
	go func() {
		done <- c.Run(ctx, func(context.Context, cloudprovider.Interruption) error {
			n++
			calls <- n
			if n == 1 {
				return errors.New("retry")
			}
			return nil
		})
	}()
	if err := c.Interrupt(got.Status.ProviderID, cloudprovider.RebalanceRecommendation); err != nil {
		t.Fatal(err)
	}
	if first := eventually.Receive(t, 10*time.Second, "the first handling", calls); first != 1 {
		t.Fatalf("call %d", first)
	}
	// Step the clock once Run waits on it for the redelivery.
	eventually.True(t, 10*time.Second, "Run waiting for the redelivery", func(context.Context) (bool, string) { return clk.HasWaiters(), "" })
	clk.Step(c.RedeliveryDelay)
	if second := eventually.Receive(t, 10*time.Second, "the redelivered handling", calls); second != 2 {
		t.Fatalf("call %d", second)
	}
	cancel()
	if err := eventually.Receive(t, 10*time.Second, "Run's return after its context ended", done); !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v", err)
	}
}
