package interruption

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

var t0 = time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)

// writer records NodeClaim deletions; any other write panics (the embedded interface is nil).
type writer struct {
	state.APIWriter
	err     error
	deleted []string
}

func (w *writer) DeleteNodeClaim(_ context.Context, name string) error {
	w.deleted = append(w.deleted, name)
	return w.err
}

// TestEventReasonPerKind: the event reason and type Karpenter records for each interruption.
func TestEventReasonPerKind(t *testing.T) {
	for _, tc := range []struct {
		kind       cloudprovider.InterruptionKind
		detail     string
		wantReason string
		wantType   string
	}{
		{cloudprovider.SpotInterruption, "terminate", "SpotInterrupted", corev1.EventTypeWarning},
		{cloudprovider.RebalanceRecommendation, "", "SpotRebalanceRecommendation", corev1.EventTypeNormal},
		{cloudprovider.ScheduledChange, "retirement", "InstanceUnhealthy", corev1.EventTypeWarning},
		{cloudprovider.CapacityReservationInterruption, "", "CapacityReservationInstanceInterrupted", corev1.EventTypeWarning},
		{cloudprovider.StateChange, "stopping", "InstanceStopping", corev1.EventTypeWarning},
		{cloudprovider.StateChange, "stopped", "InstanceStopping", corev1.EventTypeWarning},
		{cloudprovider.StateChange, "shutting-down", "InstanceTerminating", corev1.EventTypeWarning},
		{cloudprovider.StateChange, "terminated", "InstanceTerminating", corev1.EventTypeWarning},
	} {
		t.Run(string(tc.kind)+"/"+tc.detail, func(t *testing.T) {
			reason, typ := EventReason(tc.kind, tc.detail)
			if string(reason) != tc.wantReason || typ != tc.wantType {
				t.Errorf("EventReason = (%s, %s), want (%s, %s)", reason, typ, tc.wantReason, tc.wantType)
			}
		})
	}
}

const providerID = "aws:///us-east-1a/i-0123456789abcdef0"

// cluster holds a launched NodeClaim with its node and a pod, an unlaunched NodeClaim (no
// provider ID yet), and, when deleting, a launched one already being deleted.
func cluster(clk *clocktesting.FakeClock) *state.Cluster {
	c := state.NewCluster(clk)
	launched := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-abc", Labels: map[string]string{karpv1.NodePoolLabelKey: "default"}}}
	launched.Status.ProviderID = providerID
	c.UpdateNodeClaim(launched)
	// Named to sort first: an empty provider ID must not make it the target of any event.
	c.UpdateNodeClaim(&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "a-unlaunched"}})
	going := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-going", DeletionTimestamp: &metav1.Time{Time: t0},
		Finalizers: []string{karpv1.TerminationFinalizer}}}
	going.Status.ProviderID = "aws:///us-east-1a/i-0000000000000000a"
	c.UpdateNodeClaim(going)
	c.UpdateNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-0-1", Labels: map[string]string{karpv1.NodePoolLabelKey: "default"}},
		Spec: corev1.NodeSpec{ProviderID: providerID}})
	c.UpdatePod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"}, Spec: corev1.PodSpec{NodeName: "ip-10-0-0-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}})
	for _, k := range state.Kinds() {
		c.MarkSynced(k)
	}
	return c
}

// TestHandleActsPerKind: an interruption that needs a drain deletes its NodeClaim and says so on
// the NodeClaim and node; a notice only records; an event no NodeClaim owns, or about one already
// going, deletes nothing; a failed deletion is returned so that the event comes again.
func TestHandleActsPerKind(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: "karpenter.sh", Resource: "nodeclaims"}, "default-abc")
	spot := cloudprovider.Interruption{Kind: cloudprovider.SpotInterruption, InstanceID: "i-0123456789abcdef0", ProviderID: providerID,
		Detail: "terminate", At: t0.Add(-3 * time.Second), Deadline: t0.Add(2 * time.Minute), Drain: true}
	with := func(f func(*cloudprovider.Interruption)) cloudprovider.Interruption {
		ev := spot
		f(&ev)
		return ev
	}
	for _, tc := range []struct {
		name        string
		ev          cloudprovider.Interruption
		mode        executor.Mode
		deleteErr   error
		wantDeleted []string
		wantErr     bool
		wantEntry   bool     // whether the interruption is journaled
		wantMessage string   // the start of the journal entry's message
		wantReasons []string // the events' reasons, in order
	}{
		{name: "spot interruption", ev: spot, wantDeleted: []string{"default-abc"}, wantEntry: true,
			wantMessage: "deleting nodeclaim default-abc: SpotInterruption for i-0123456789abcdef0, draining 1 pod(s) before 10:02:00 UTC",
			wantReasons: []string{"SpotInterrupted", "SpotInterrupted", "TerminatingOnInterruption", "TerminatingOnInterruption"}},
		{name: "scheduled change", ev: with(func(ev *cloudprovider.Interruption) {
			ev.Kind, ev.Deadline = cloudprovider.ScheduledChange, time.Time{}
		}),
			wantDeleted: []string{"default-abc"}, wantEntry: true,
			wantMessage: "deleting nodeclaim default-abc: ScheduledChange for i-0123456789abcdef0, draining 1 pod(s) before the instance goes",
			wantReasons: []string{"InstanceUnhealthy", "InstanceUnhealthy", "TerminatingOnInterruption", "TerminatingOnInterruption"}},
		{name: "instance stopping", ev: with(func(ev *cloudprovider.Interruption) { ev.Kind, ev.Detail = cloudprovider.StateChange, "stopping" }),
			wantDeleted: []string{"default-abc"}, wantEntry: true, wantMessage: "deleting nodeclaim default-abc: StateChange",
			wantReasons: []string{"InstanceStopping", "InstanceStopping", "TerminatingOnInterruption", "TerminatingOnInterruption"}},
		{name: "rebalance recommendation is a notice",
			ev:        with(func(ev *cloudprovider.Interruption) { ev.Kind, ev.Drain = cloudprovider.RebalanceRecommendation, false }),
			wantEntry: true, wantMessage: "RebalanceRecommendation for nodeclaim default-abc (i-0123456789abcdef0): noted, nothing to do",
			wantReasons: []string{"SpotRebalanceRecommendation", "SpotRebalanceRecommendation"}},
		{name: "an instance no nodeclaim owns", ev: with(func(ev *cloudprovider.Interruption) {
			ev.InstanceID, ev.ProviderID = "i-0fffffffffffffff0", "aws:///us-east-1a/i-0fffffffffffffff0"
		}), wantEntry: true, wantMessage: "SpotInterruption for i-0fffffffffffffff0, which no nodeclaim owns; ignored"},
		// The queue sends an event with its instance ID only when it could not look the
		// instance up: the instance ID matches, and never a NodeClaim with no provider ID yet.
		{name: "no provider id", ev: with(func(ev *cloudprovider.Interruption) { ev.ProviderID = "" }),
			wantDeleted: []string{"default-abc"}, wantEntry: true,
			wantMessage: "deleting nodeclaim default-abc: SpotInterruption for i-0123456789abcdef0",
			wantReasons: []string{"SpotInterrupted", "SpotInterrupted", "TerminatingOnInterruption", "TerminatingOnInterruption"}},
		{name: "no provider id, an instance no nodeclaim owns", ev: with(func(ev *cloudprovider.Interruption) {
			ev.InstanceID, ev.ProviderID = "i-0fffffffffffffff0", ""
		}), wantEntry: true, wantMessage: "SpotInterruption for i-0fffffffffffffff0, which no nodeclaim owns; ignored"},
		{name: "an instance id that only ends like one", ev: with(func(ev *cloudprovider.Interruption) {
			ev.InstanceID, ev.ProviderID = "abcdef0", ""
		}), wantEntry: true, wantMessage: "SpotInterruption for abcdef0, which no nodeclaim owns; ignored"},
		{name: "an empty event", ev: cloudprovider.Interruption{}, wantEntry: true, wantMessage: " for , which no nodeclaim owns; ignored"},
		{name: "a nodeclaim already being deleted",
			ev: with(func(ev *cloudprovider.Interruption) { ev.ProviderID = "aws:///us-east-1a/i-0000000000000000a" })},
		{name: "deletion fails", ev: spot, deleteErr: errors.New("apiserver down"), wantDeleted: []string{"default-abc"}, wantErr: true,
			wantEntry: true, wantMessage: "failed deleting nodeclaim default-abc", wantReasons: []string{"SpotInterrupted", "SpotInterrupted"}},
		{name: "nodeclaim gone meanwhile", ev: spot, deleteErr: notFound, wantDeleted: []string{"default-abc"},
			wantEntry: true, wantMessage: "deleting nodeclaim default-abc",
			wantReasons: []string{"SpotInterrupted", "SpotInterrupted", "TerminatingOnInterruption", "TerminatingOnInterruption"}},
		{name: "dry run", ev: spot, mode: executor.DryRun, wantEntry: true, wantMessage: "would delete nodeclaim default-abc",
			wantReasons: []string{"SpotInterrupted", "SpotInterrupted", "TerminatingOnInterruption", "TerminatingOnInterruption"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(t0)
			w := &writer{err: tc.deleteErr}
			j := journal.New(100)
			h := New(cluster(clk), executor.New(tc.mode, w, nil, j, clk), j, clk)
			err := h.Handle(t.Context(), tc.ev)
			if (err != nil) != tc.wantErr {
				t.Errorf("Handle = %v, want an error: %v", err, tc.wantErr)
			}
			if !slices.Equal(w.deleted, tc.wantDeleted) {
				t.Errorf("deleted %v, want %v", w.deleted, tc.wantDeleted)
			}
			var entries []journal.Entry
			for _, e := range j.Entries(0) {
				if e.Kind == journal.KindInterruption {
					entries = append(entries, e)
				}
			}
			if !tc.wantEntry {
				if len(entries) != 0 {
					t.Errorf("journaled %q, want nothing", entries[0].Message)
				}
				return
			}
			if len(entries) != 1 {
				t.Fatalf("journaled %d interruption entries, want 1", len(entries))
			}
			e := entries[0]
			if !strings.HasPrefix(e.Message, tc.wantMessage) {
				t.Errorf("message %q, want it to start with %q", e.Message, tc.wantMessage)
			}
			if string(e.Reason) != string(tc.ev.Kind) || e.MessageType != tc.ev.MessageType() || e.DryRun != (tc.mode == executor.DryRun) {
				t.Errorf("entry reason %q, message type %q, dry run %v; want %q, %q, %v", e.Reason, e.MessageType, e.DryRun,
					tc.ev.Kind, tc.ev.MessageType(), tc.mode == executor.DryRun)
			}
			var reasons []string
			for _, ev := range e.Events {
				reasons = append(reasons, string(ev.Reason))
			}
			if !slices.Equal(reasons, tc.wantReasons) {
				t.Errorf("events %v, want %v", reasons, tc.wantReasons)
			}
		})
	}
}

// TestDeadlineText: an announced deadline is shown in UTC whatever the event's zone; an event
// without one (a state change) says the instance goes now.
func TestDeadlineText(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		name     string
		deadline time.Time
		want     string
	}{
		{"none", time.Time{}, "the instance goes"},
		{"UTC", time.Date(2026, 12, 5, 10, 4, 5, 0, time.UTC), "10:04:05 UTC"},
		{"another zone", time.Date(2026, 12, 5, 19, 4, 5, 0, tokyo), "10:04:05 UTC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := deadlineText(cloudprovider.Interruption{Deadline: tc.deadline}); got != tc.want {
				t.Errorf("deadlineText = %q, want %q", got, tc.want)
			}
		})
	}
}
