package app

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/aws"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/internal/apitest"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// TestNewWithoutAWS: read-only needs neither a cluster name nor AWS, and says which it lacks;
// a run that acts needs both, and fails with the fix.
func TestNewWithoutAWS(t *testing.T) {
	api := apitest.VersionOnly(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name       string
		opts       Options
		noProvider string // read-only's reason
		err        string // or the error
		is         error
	}{
		{name: "read-only without a cluster name", opts: Options{ReadOnly: true}, noProvider: "no cluster name"},
		{name: "read-only without a region", opts: Options{ReadOnly: true, ClusterName: "prod"}, noProvider: "no AWS region"},
		{name: "read-only without credentials", opts: Options{ReadOnly: true, ClusterName: "prod", AWS: aws.ConfigOptions{Region: "us-east-1"}},
			noProvider: "no AWS credentials"},
		{name: "read-only with a profile that does not exist", opts: Options{ReadOnly: true, ClusterName: "prod", AWS: aws.ConfigOptions{Profile: "nope"}},
			err: `profile "nope"`},
		{name: "live without a cluster name", opts: Options{}, err: "set --cluster-name"},
		{name: "live without a region", opts: Options{ClusterName: "prod"}, is: aws.ErrNoRegion},
		{name: "live without credentials", opts: Options{ClusterName: "prod", AWS: aws.ConfigOptions{Region: "us-east-1"}}, is: aws.ErrNoCredentials},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
				"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
				t.Setenv(k, "")
			}
			t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "none"))
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "none"))
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			opts := tc.opts
			opts.REST = &rest.Config{Host: api.URL}
			opts.AWS.IMDSRegion = true
			opts.Logger = slog.New(slog.DiscardHandler)
			a, err := New(context.Background(), opts)
			switch {
			case tc.is != nil:
				if !errors.Is(err, tc.is) {
					t.Fatalf("New = %v, want %v", err, tc.is)
				}
				return
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("New = %v, want an error naming %q", err, tc.err)
				}
				return
			case err != nil:
				t.Fatalf("New = %v", err)
			}
			if a.Provider != nil || a.NoProvider != tc.noProvider || a.Autoscaler != nil {
				t.Fatalf("provider %v, why none %q, autoscaler %v; want none because %q, no autoscaler", a.Provider, a.NoProvider, a.Autoscaler, tc.noProvider)
			}
			c := a.Console("prod")
			if got := c.Info().NoCloud; got != tc.noProvider {
				t.Errorf("the console's header would say %q, want %q", got, tc.noProvider)
			}
			if _, err := c.ExplainPod(context.Background(), &corev1.Pod{}); err == nil || !strings.Contains(err.Error(), tc.noProvider) {
				t.Errorf("explain = %v, want an error saying %q", err, tc.noProvider)
			}
			if a.InstanceType("default", "m5.large") != nil {
				t.Error("an instance type without a provider")
			}
		})
	}
}

func TestTerminationStep(t *testing.T) {
	now := metav1.Now()
	nodeClass := func(deleting, finalizer bool) *awsv1.EC2NodeClass {
		nc := &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
		if deleting {
			nc.DeletionTimestamp = &now
		}
		if finalizer {
			nc.Finalizers = []string{awsv1.TerminationFinalizer}
		}
		return nc
	}
	using := func(kind, name string) *state.Snapshot {
		return &state.Snapshot{NodeClaims: []*karpv1.NodeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "nc"},
			Spec: karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Group: awsv1.Group, Kind: kind, Name: name}}}}}
	}
	for _, tc := range []struct {
		name string
		nc   *awsv1.EC2NodeClass
		snap *state.Snapshot
		want finalizerStep
		// holding are the NodeClaims a deleted class waits for.
		holding []string
	}{
		{"a live class gets the finalizer", nodeClass(false, false), &state.Snapshot{}, addFinalizer, nil},
		{"a live class keeps it", nodeClass(false, true), &state.Snapshot{}, nothingToDo, nil},
		{"a deleted class waits for its nodeclaims", nodeClass(true, true), using(awsv1.KindEC2NodeClass, "default"), waitForNodeClaims, []string{"nc"}},
		{"another class's nodeclaims do not hold it", nodeClass(true, true), using(awsv1.KindEC2NodeClass, "other"), releaseNodeClass, nil},
		{"released once none is left", nodeClass(true, true), &state.Snapshot{}, releaseNodeClass, nil},
		{"without the finalizer nothing is ours", nodeClass(true, false), &state.Snapshot{}, nothingToDo, nil},
	} {
		if got, holding := terminationStep(tc.nc, tc.snap); got != tc.want || !slices.Equal(holding, tc.holding) {
			t.Errorf("%s: step %d holding %v, want %d holding %v", tc.name, got, holding, tc.want, tc.holding)
		}
	}
}

func TestStaleNodeClassHashes(t *testing.T) {
	nc := &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	launched := []metav1.Condition{{Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue}}
	claim := func(name, class, version string, conditions []metav1.Condition) *karpv1.NodeClaim {
		c := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}},
			Spec:   karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Group: awsv1.Group, Kind: awsv1.KindEC2NodeClass, Name: class}},
			Status: karpv1.NodeClaimStatus{Conditions: conditions}}
		if version != "" {
			c.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] = version
		}
		return c
	}
	snap := &state.Snapshot{NodeClaims: []*karpv1.NodeClaim{
		claim("current", "default", awsv1.EC2NodeClassHashVersion, launched),
		claim("old-scheme", "default", "nodepilot-v1", launched),
		claim("no-scheme", "default", "", launched),
		claim("not-launched", "default", "", nil),
		claim("other-class", "other", "nodepilot-v1", launched),
	}}
	if got := strings.Join(staleNodeClassHashes(snap, nc), " "); got != "old-scheme no-scheme" {
		t.Errorf("stale %q, want old-scheme no-scheme", got)
	}
}

// TestNodeClassConditionsAreJournaledOnce: a condition of an EC2NodeClass that does not hold is
// journaled with its reason and message, once until it changes, whether or not the status write
// happens (a dry run never writes it).
func TestNodeClassConditionsAreJournaledOnce(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC))
	j := journal.New(100)
	a := &App{Journal: j, Executor: executor.New(executor.DryRun, nil, nil, j, clk), opts: Options{Clock: clk}}
	ready := metav1.Condition{Type: awsv1.ConditionTypeSubnetsReady, Status: metav1.ConditionTrue, Reason: "SubnetsReady"}
	unsupported := metav1.Condition{Type: awsv1.ConditionTypeCapacityReservationsReady, Status: metav1.ConditionFalse, Reason: "Unsupported",
		Message: "nodepilot does not launch into capacity reservations"}
	reasonChanged := unsupported
	reasonChanged.Reason, reasonChanged.Message = "CapacityReservationNotFound", "no reservation matched"
	told := map[string]map[string]string{}
	for _, step := range []struct {
		conditions []metav1.Condition
		want       int // entries journaled so far
	}{
		{[]metav1.Condition{ready, unsupported}, 1},
		{[]metav1.Condition{ready, unsupported}, 1},
		{[]metav1.Condition{ready, reasonChanged}, 2},
		{[]metav1.Condition{ready}, 2},
		{[]metav1.Condition{ready, unsupported}, 3},
	} {
		a.journalConditions("default", step.conditions, told)
		if got := len(j.Entries(0)); got != step.want {
			t.Fatalf("%d entries after %v, want %d", got, step.conditions, step.want)
		}
	}
	e := j.Entries(0)[0]
	if e.Kind != journal.KindNodeClass || e.Reason != "Unsupported" || !strings.Contains(e.Message, "ec2nodeclass default: CapacityReservationsReady is False (Unsupported): nodepilot does not launch") {
		t.Errorf("entry %+v", e)
	}
}
