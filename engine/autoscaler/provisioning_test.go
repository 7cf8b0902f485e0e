package autoscaler_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func TestScaleOutLaunchesOneNodeThatRunsThePods(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default")
	h.Deployment("inflate", 5, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)

	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	claims := h.API.NodeClaims()
	if len(claims) != 1 || len(h.Cloud.Instances()) != 1 {
		t.Fatalf("%d nodeclaims, %d instances; want one of each", len(claims), len(h.Cloud.Instances()))
	}
	nc := claims[0]
	for _, c := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized, karpv1.ConditionTypeReady} {
		if !meta.IsStatusConditionTrue(nc.Status.Conditions, c) {
			t.Errorf("nodeclaim condition %s not true: %+v", c, nc.Status.Conditions)
		}
	}
	// As Karpenter's: the node class label from the template, the launch's annotations kept.
	if nc.Labels["karpenter.k8s.aws/ec2nodeclass"] != enginetest.DefaultNodeClass ||
		nc.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] != awsv1.EC2NodeClassHashVersion {
		t.Errorf("nodeclaim labels %v, annotations %v", nc.Labels, nc.Annotations)
	}
	if !slices.Contains(nc.Finalizers, karpv1.TerminationFinalizer) || nc.Labels[karpv1.NodePoolLabelKey] != "default" ||
		len(nc.OwnerReferences) != 1 || nc.OwnerReferences[0].Kind != "NodePool" || nc.Annotations[karpv1.NodePoolHashAnnotationKey] == "" {
		t.Errorf("nodeclaim metadata %+v", nc.ObjectMeta)
	}
	node := h.managedNodes()[0].Node
	unregistered := karpv1.UnregisteredNoExecuteTaint()
	if node.Labels[karpv1.NodeRegisteredLabelKey] != "true" || node.Labels["karpenter.k8s.aws/ec2nodeclass"] != enginetest.DefaultNodeClass || node.Labels[karpv1.NodeInitializedLabelKey] != "true" ||
		slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&unregistered) }) {
		t.Errorf("node labels %v, taints %v", node.Labels, node.Spec.Taints)
	}
	for _, step := range []string{"launched nodeclaim", "registered nodeclaim", "initialized nodeclaim"} {
		if !h.journaled("", "", step) {
			t.Errorf("journal lacks %q", step)
		}
	}
}

// TestRegistrationWithoutTheUnregisteredTaint: a node that comes up without karpenter.sh/unregistered
// is adopted all the same, and its NodeClaim gets Karpenter's warning, only where the taint was
// missing.
func TestRegistrationWithoutTheUnregisteredTaint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		missing bool
	}{{"with the taint", false}, {"without it", true}} {
		t.Run(tc.name, func(t *testing.T) {
			k := enginetest.DefaultKubeletOptions()
			k.NoUnregisteredTaint = tc.missing
			h := newHarnessWithKubelet(t, k)
			h.NodePool("default")
			h.Deployment("inflate", 2, enginetest.Resources("1", ""))
			h.Advance(time.Minute, time.Second)
			if err := h.CheckConverged(); err != nil {
				t.Fatal(err)
			}
			warned := 0
			for _, e := range h.API.Events() {
				if e.Reason == "UnregisteredTaintMissing" && e.Kind == karpv1.KindNodeClaim && e.Type == corev1.EventTypeWarning {
					warned++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.missing]; warned != want {
				t.Errorf("%d UnregisteredTaintMissing events, want %d", warned, want)
			}
		})
	}
}

// TestNoCompatibleInstanceTypes: a NodePool whose requirements leave no instance type gets
// Karpenter's warning once, not on every provisioning pass.
func TestNoCompatibleInstanceTypes(t *testing.T) {
	h := newHarness(t)
	h.NodePool("barren", enginetest.Require(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, "nope.large"))
	h.Deployment("inflate", 1, enginetest.Resources("1", ""))
	h.Advance(5*time.Minute, time.Second)
	warned := 0
	for _, e := range h.API.Events() {
		if e.Reason == "NoCompatibleInstanceTypes" && e.Kind == karpv1.KindNodePool && e.Name == "barren" && e.Type == corev1.EventTypeWarning {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d NoCompatibleInstanceTypes events on the NodePool, want 1", warned)
	}
}

func TestPodsOnExistingCapacityAreNominated(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default")
	h.Deployment("big", 1, enginetest.Resources("3", ""))
	h.Advance(time.Minute, time.Second)
	before := len(h.API.NodeClaims())
	// A small pod fits on the node that is there: no new nodeclaim, a nomination instead.
	h.Deployment("small", 1, enginetest.Resources("100m", ""))
	h.Step(0)
	if got := len(h.API.NodeClaims()); got != before {
		t.Errorf("%d nodeclaims after a pod that fits, want %d", got, before)
	}
	h.Advance(30*time.Second, time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
}

func TestInsufficientCapacityFallsBackToAnotherOffering(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", enginetest.Require(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand))
	h.Cloud.InjectInsufficientCapacity(enginetest.OfferingKey{CapacityType: karpv1.CapacityTypeSpot})
	h.Deployment("web", 3, enginetest.Resources("1", ""))
	h.Advance(2*time.Minute, time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	if !h.journaled(journal.KindLaunch, "InsufficientCapacity", "deleting it so its pods are planned again") {
		t.Error("the failed launch is not journaled")
	}
	for _, inst := range h.Cloud.Instances() {
		if inst.CapacityType != karpv1.CapacityTypeOnDemand {
			t.Errorf("instance %s is %s; spot had no capacity", inst.ID, inst.CapacityType)
		}
	}
}

func TestNodePoolLimitsHold(t *testing.T) {
	h := newHarness(t)
	h.NodePool("limited", enginetest.Limit(corev1.ResourceCPU, "4"))
	h.Deployment("web", 6, enginetest.Resources("1", ""), enginetest.OnePerNode())
	h.Advance(2*time.Minute, time.Second)
	if err := h.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if len(h.Cloud.Instances()) == 0 || len(h.Cluster.Snapshot().PendingPods()) == 0 {
		t.Fatalf("want some nodes and some pods left pending by the limit, got %d instances", len(h.Cloud.Instances()))
	}
}

// TestLaunchErrorsRetryWithBackoff: a launch that fails is retried with backoff until it
// succeeds, its NodeClaim's Launched condition Unknown meanwhile with the provider's reason (as
// Karpenter's); a node class not ready yet is said once on the NodeClaim, as Karpenter's event.
func TestLaunchErrorsRetryWithBackoff(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		notReady   int // NodeClassNotReady events
		wantReason string
	}{
		{"an API error", enginetest.ErrInjected, 0, "LaunchFailed"},
		{"a node class not ready", &cloudprovider.NodeClassNotReadyError{NodeClass: "default", Reason: "no subnet selected"}, 1, "LaunchFailed"},
		{"a failure the provider names", &cloudprovider.CreateError{Reason: "VCPULimitExceeded", Message: "over the vCPU quota", Err: enginetest.ErrInjected},
			0, "VCPULimitExceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.NodePool("default")
			h.Cloud.FailNext("Create", 2, tc.err)
			h.Deployment("web", 1, enginetest.Resources("1", ""))
			reason := ""
			for i := 0; i < 30 && reason == ""; i++ {
				h.Step(time.Second)
				for _, nc := range h.API.NodeClaims() {
					if c := meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeLaunched); c != nil && c.Status == metav1.ConditionUnknown {
						reason = c.Reason
					}
				}
			}
			if reason != tc.wantReason {
				t.Errorf("Launched=Unknown with reason %q while failing, want %q", reason, tc.wantReason)
			}
			h.Advance(time.Minute, time.Second)
			if err := h.CheckConverged(); err != nil {
				t.Fatal(err)
			}
			if len(h.API.NodeClaims()) != 1 || !h.journaled(journal.KindLaunch, "Error", "retry in") {
				t.Errorf("want one nodeclaim launched after retries, got %d", len(h.API.NodeClaims()))
			}
			notReady := 0
			for _, e := range h.API.Events() {
				if e.Reason == "NodeClassNotReady" && e.Kind == karpv1.KindNodeClaim && e.Type == corev1.EventTypeWarning {
					notReady++
				}
			}
			if notReady != tc.notReady {
				t.Errorf("%d NodeClassNotReady events, want %d", notReady, tc.notReady)
			}
		})
	}
}

func TestNodeClaimThatNeverRegistersIsReplaced(t *testing.T) {
	// Machines take 20 minutes to join: the first nodeclaim times out at 15 and is replaced.
	k := enginetest.DefaultKubeletOptions()
	k.JoinDelay = 20 * time.Minute
	h := newHarnessWithKubelet(t, k)
	h.NodePool("default")
	h.Deployment("web", 1, enginetest.Resources("1", ""))
	h.Advance(16*time.Minute, 10*time.Second)
	if !h.journaled(journal.KindLiveness, "LivenessTimeout", "did not register within 15m0s") {
		t.Fatal("a nodeclaim whose node never registered was not deleted")
	}
	if err := h.CheckNoOrphans(); err != nil {
		t.Fatalf("the timed-out nodeclaim's instance leaked: %v", err)
	}
}

// TestIgnoredPodsAreToldWhy: pods whose node selectors Karpenter cannot honour get no node, and
// hear why as Karpenter says it; a pod that wants no Karpenter node hears nothing. Both count as
// ignored, not as unschedulable.
func TestIgnoredPodsAreToldWhy(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default")
	h.Deployment("pinned", 1, enginetest.Resources("1", ""), enginetest.WithNodeSelector(map[string]string{corev1.LabelHostname: "node-1"}))
	h.Deployment("elsewhere", 1, enginetest.Resources("1", ""),
		enginetest.WithNodeRequirements(corev1.NodeSelectorRequirement{Key: karpv1.NodePoolLabelKey, Operator: corev1.NodeSelectorOpDoesNotExist}))
	h.Advance(time.Minute, time.Second)
	if n := len(h.API.NodeClaims()); n != 0 {
		t.Fatalf("%d nodeclaims for pods Karpenter ignores", n)
	}
	told := map[string]string{}
	for _, e := range h.API.Events() {
		if e.Reason == "FailedScheduling" {
			told[strings.SplitN(e.Name, "-", 2)[0]] = e.Message
		}
	}
	// Karpenter's event says "Failed to schedule pod, " and the error alone (checked against the
	// real controller in the conformance tier).
	if msg := told["pinned"]; !strings.HasPrefix(msg, "Failed to schedule pod, ") || strings.Contains(msg, "ignoring pod") || !strings.Contains(msg, corev1.LabelHostname) {
		t.Errorf("the pinned pod heard %q", msg)
	}
	if msg, ok := told["elsewhere"]; ok {
		t.Errorf("the pod that wants no Karpenter node heard %q", msg)
	}
	ignored, unschedulable := h.measured.Of(journal.MeasureIgnoredPods), h.measured.Of(journal.MeasureUnschedulablePods)
	if len(ignored) == 0 || ignored[len(ignored)-1].Value != 2 || unschedulable[len(unschedulable)-1].Value != 0 {
		t.Errorf("measured ignored %+v, unschedulable %+v; want 2 ignored, none unschedulable", ignored, unschedulable)
	}
}

// TestUnschedulablePodIsToldOncePerReason: a pod no NodePool can fit hears why when it first
// fails, then only every UnschedulableHeartbeat while its reasons stay the same, and at once when
// they change; the journal says it as often as the event.
func TestUnschedulablePodIsToldOncePerReason(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default")
	h.Deployment("huge", 1, enginetest.Resources("1000", ""))
	told := func() (entries, events int) {
		for _, e := range h.entries(journal.KindProvisioning) {
			if e.Reason == "FailedScheduling" {
				entries++
			}
		}
		for _, e := range h.API.Events() {
			if e.Reason == "FailedScheduling" {
				events++
			}
		}
		return entries, events
	}
	steps := []struct {
		name   string
		change func()
		wait   time.Duration
		want   int
	}{
		{"first failure", func() {}, 30 * time.Second, 1},
		{"same reasons within the heartbeat", func() {}, provisioning.UnschedulableHeartbeat - time.Minute, 1},
		{"same reasons after the heartbeat", func() {}, 2 * time.Minute, 2},
		{"reasons changed: another NodePool", func() { h.NodePool("other") }, 30 * time.Second, 3},
	}
	for _, s := range steps {
		s.change()
		h.Advance(s.wait, 5*time.Second)
		if entries, events := told(); entries != s.want || events != s.want {
			t.Fatalf("%s: told %d times in the journal and %d as events, want %d", s.name, entries, events, s.want)
		}
	}
}
