package autoscaler_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/enginetest"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/engine/termination"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

func TestDrainEvictsInTiersAndWaitsForBudgets(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour))
	h.Deployment("api", 3, enginetest.Resources("500m", ""), enginetest.WithLabels(map[string]string{"app": "api"}))
	h.PDB("api-pdb", map[string]string{"app": "api"}, "2", "")
	h.Deployment("critical", 1, enginetest.Resources("100m", ""), enginetest.WithPriorityClass("system-cluster-critical"))
	h.DaemonSet("logs", enginetest.Resources("50m", ""))
	h.Advance(time.Minute, time.Second)
	claim := h.API.NodeClaims()[0].Name
	tiers := map[types.NamespacedName]int{}
	for _, p := range h.API.Pods() {
		tiers[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = termination.Tier(p)
	}
	if err := h.API.DeleteNodeClaim(t.Context(), claim); err != nil {
		t.Fatal(err)
	}
	h.Advance(3*time.Minute, time.Second)

	// The PDB lets one api pod go at a time: the drain must have been refused and retried.
	if !h.journaled(journal.KindBlocked, "PDB", "api-pdb") {
		t.Error("no refused eviction journaled for api-pdb")
	}
	// Tiers: every non-critical pod was evicted before any critical one, DaemonSet pods last.
	var order []int
	for _, ev := range h.API.Evictions() {
		if tier, ok := tiers[ev.Pod]; ok && ev.Allowed {
			order = append(order, tier)
		}
	}
	if len(order) < 5 {
		t.Fatalf("%d evictions of the original pods, want the 3 api, 1 critical and 1 DaemonSet pods: %v", len(order), h.API.Evictions())
	}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			t.Fatalf("eviction tiers out of order: %v", order)
		}
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	for _, nc := range h.API.NodeClaims() {
		if nc.Name == claim {
			t.Errorf("nodeclaim %s still there after its drain", claim)
		}
	}
}

func TestTerminationGracePeriodForcesTheDrain(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour), terminationGracePeriod(2*time.Minute))
	h.Deployment("stuck", 1, enginetest.Resources("500m", ""), enginetest.WithLabels(map[string]string{"app": "stuck"}))
	h.PDB("never", map[string]string{"app": "stuck"}, "1", "")
	h.Advance(time.Minute, time.Second)
	claim := h.API.NodeClaims()[0].Name
	if err := h.API.DeleteNodeClaim(t.Context(), claim); err != nil {
		t.Fatal(err)
	}
	h.Advance(time.Minute, time.Second)
	if nc, err := h.API.NodeClaim(claim); err != nil || nc == nil {
		t.Fatal("the budget should hold the drain before the grace period ends")
	}
	// A minute of drain passes and eviction retries, one refusal: the journal says it once.
	var refusals []string
	for _, e := range h.entries(journal.KindBlocked) {
		if e.Reason == "PDB" && strings.HasPrefix(e.Message, "draining node") {
			refusals = append(refusals, e.Message)
		}
	}
	if len(refusals) != 1 {
		t.Errorf("the held drain was journaled %d times, want once:\n%s", len(refusals), strings.Join(refusals, "\n"))
	}
	// As Karpenter, the node and the NodeClaim are told when their pods will be deleted, once.
	expiring := map[string]int{}
	for _, e := range h.API.Events() {
		if e.Reason == "TerminationGracePeriodExpiring" && e.Type == corev1.EventTypeWarning && strings.HasPrefix(e.Message, "All pods will be deleted by ") {
			expiring[e.Kind]++
		}
	}
	if expiring["Node"] != 1 || expiring[karpv1.KindNodeClaim] != 1 {
		t.Errorf("TerminationGracePeriodExpiring events by kind %v, want one on the node and one on the nodeclaim", expiring)
	}
	h.Advance(3*time.Minute, time.Second)
	if nc, err := h.API.NodeClaim(claim); err == nil && nc != nil {
		t.Fatal("the grace period passed and the node still drains")
	}
	// The pod deleted past its budget hears why, as in Karpenter.
	disrupted := 0
	for _, e := range h.API.Events() {
		if e.Reason == "Disrupted" && e.Kind == "Pod" && strings.Contains(e.Message, "This bypasses the PDB of the pod") {
			disrupted++
		}
	}
	if disrupted != 1 {
		t.Errorf("%d Disrupted events on the stuck pod, want 1", disrupted)
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
}

func TestSpotInterruptionDrainsAndReplaces(t *testing.T) {
	h := newHarness(t)
	h.NodePool("spot", enginetest.Spot(), consolidateAfter(time.Hour))
	h.Deployment("web", 2, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	first := h.Cloud.Instances()[0]
	h.Cloud.Interrupt(first.ProviderID, cloudprovider.SpotInterruption)
	h.Advance(3*time.Minute, time.Second)
	if !h.journaled(journal.KindInterruption, journal.Reason(cloudprovider.SpotInterruption), "deleting nodeclaim") {
		t.Fatal("the spot interruption was not acted on")
	}
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	for _, inst := range h.Cloud.Instances() {
		if inst.ID == first.ID && inst.State == enginetest.InstanceRunning {
			t.Errorf("the interrupted instance %s still runs", first.ID)
		}
	}
	if h.running() == 0 {
		t.Error("no replacement runs the pods")
	}
	found := false
	for _, e := range h.API.Events() {
		found = found || e.Reason == "SpotInterrupted"
	}
	if !found {
		t.Error("no SpotInterrupted event")
	}
}

func TestRebalanceRecommendationIsOnlyJournaled(t *testing.T) {
	h := newHarness(t)
	h.NodePool("spot", enginetest.Spot(), consolidateAfter(time.Hour))
	h.Deployment("web", 1, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	inst := h.Cloud.Instances()[0]
	h.Cloud.Interrupt(inst.ProviderID, cloudprovider.RebalanceRecommendation)
	h.Advance(time.Minute, time.Second)
	if !h.journaled(journal.KindInterruption, journal.Reason(cloudprovider.RebalanceRecommendation), "noted, nothing to do") {
		t.Fatal("the rebalance recommendation was not journaled")
	}
	if h.running() != 1 || len(h.API.NodeClaims()) != 1 {
		t.Error("a rebalance recommendation disrupted the node")
	}
}

func TestStaleDisruptedTaintIsRemovedOnStart(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour))
	h.Deployment("web", 1, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	sn := h.managedNodes()[0]
	node := sn.Name()
	// A crashed process left the taint and the DisruptionReason of a command it never finished.
	h.stop()
	if _, err := h.API.UpdateNode(t.Context(), node, func(n *corev1.Node) error {
		n.Spec.Taints = append(n.Spec.Taints, karpv1.DisruptedNoScheduleTaint())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.API.UpdateNodeClaimStatus(t.Context(), sn.NodeClaim.Name, func(nc *karpv1.NodeClaim) error {
		meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeDisruptionReason, Status: metav1.ConditionTrue, Reason: "Drifted"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.Step(time.Second)
	if err := h.CheckNoDisruptedTaints(); err != nil {
		t.Fatal(err)
	}
	if !h.journaled(journal.KindDisruption, "StaleTaintRemoved", node) {
		t.Error("the removal is not journaled")
	}
	for _, nc := range h.API.NodeClaims() {
		if c := meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeDisruptionReason); c != nil {
			t.Errorf("nodeclaim %s keeps a stale %s condition: %+v", nc.Name, c.Type, c)
		}
	}
}

func TestSeedStory(t *testing.T) {
	// Five one-CPU pods scale out onto one node and run; scaled to zero, the empty node goes; on
	// a spot pool, an interruption drains the node and a replacement runs the pods again.
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Minute))
	h.Deployment("inflate", 5, enginetest.Resources("1", ""))
	h.Advance(time.Minute, time.Second)
	if err := h.CheckConverged(); err != nil || h.running() != 1 {
		t.Fatalf("scale out: %v, %d instances", err, h.running())
	}
	h.Scale("inflate", 0)
	h.Advance(3*time.Minute, time.Second)
	if h.running() != 0 {
		t.Fatalf("scale in: %d instances still running", h.running())
	}
	h.NodePool("spot", enginetest.Spot(), consolidateAfter(time.Hour))
	h.Deployment("batch", 2, enginetest.Resources("1", ""), enginetest.WithNodeSelector(map[string]string{karpv1.NodePoolLabelKey: "spot"}))
	h.Advance(time.Minute, time.Second)
	spot := h.Cloud.Instances()[len(h.Cloud.Instances())-1]
	h.Cloud.Interrupt(spot.ProviderID, cloudprovider.SpotInterruption)
	h.Advance(3*time.Minute, time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	var story []string
	for _, e := range h.journal.Entries(0) {
		if e.Kind != journal.KindBlocked {
			story = append(story, e.Message)
		}
	}
	for _, want := range []string{"created nodeclaim", "launched nodeclaim", "disrupting node(s): Emptiness", "SpotInterruption for"} {
		if !strings.Contains(strings.Join(story, "\n"), want) {
			t.Errorf("the journal does not tell %q", want)
		}
	}
}

// TestTerminationWaitsForVolumesToDetach: once drained, a node's instance is not terminated while
// a persistent volume of a drained pod is still attached to it (its pod could not attach it
// elsewhere), until the attach-detach controller removes the attachment or the termination grace
// period ends, as Karpenter does; a volume held by a pod that stays on the node does not count.
func TestTerminationWaitsForVolumesToDetach(t *testing.T) {
	for _, tc := range []struct {
		name     string
		grace    time.Duration // terminationGracePeriod (0: none)
		heldBy   string        // the pod whose claim the volume is: a drained one or one staying
		detach   bool          // the attach-detach controller removes the attachment after 2 minutes
		wait     bool          // termination must wait for it
		detached metav1.ConditionStatus
		// unwatched: the identity may not read VolumeAttachments; termination says so once and
		// does not wait.
		unwatched bool
	}{
		{name: "detached in time", heldBy: "db", detach: true, wait: true, detached: metav1.ConditionTrue},
		{name: "never detached, the grace period ends it", grace: 4 * time.Minute, heldBy: "db", wait: true, detached: metav1.ConditionFalse},
		{name: "held by a pod that stays", heldBy: "agent", detached: metav1.ConditionTrue},
		{name: "attachments unreadable", heldBy: "db", unwatched: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []enginetest.NodePoolOption
			if tc.grace > 0 {
				opts = append(opts, terminationGracePeriod(tc.grace))
			}
			h := newHarness(t)
			if tc.unwatched {
				h.Cluster.MarkUnwatched(state.KindVolumeAttachment, `volumeattachments.storage.k8s.io is forbidden`)
			}
			h.NodePool("default", append(opts, consolidateAfter(time.Hour))...)
			claim := func(name string) enginetest.PodOption {
				return func(p *corev1.Pod) {
					p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data",
						VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
				}
			}
			h.Deployment("db", 1, enginetest.Resources("500m", ""), claim("db-data"))
			// A pod tolerating the disrupted taint stays on the node through the drain.
			h.Deployment("agent", 1, enginetest.Resources("100m", ""), claim("agent-data"),
				enginetest.WithTolerations(corev1.Toleration{Key: karpv1.DisruptedTaintKey, Operator: corev1.TolerationOpExists}))
			for _, name := range []string{"db-data", "agent-data"} {
				h.Cluster.UpdatePVC(boundClaim(name, "pv-"+name))
				h.Cluster.UpdatePV(&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-" + name}})
			}
			h.Advance(time.Minute, time.Second)
			node := h.managedNodes()[0]
			pv := "pv-" + tc.heldBy + "-data"
			h.Cluster.UpdateVolumeAttachment(&storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "va-1"},
				Spec: storagev1.VolumeAttachmentSpec{NodeName: node.Name(), Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pv}}})
			if err := h.API.DeleteNodeClaim(t.Context(), node.NodeClaim.Name); err != nil {
				t.Fatal(err)
			}
			h.Advance(2*time.Minute, time.Second)
			var c *metav1.Condition
			if nc, _ := h.API.NodeClaim(node.NodeClaim.Name); nc != nil {
				c = meta.FindStatusCondition(nc.Status.Conditions, karpv1.ConditionTypeVolumesDetached)
			}
			if waiting := c != nil && c.Status == metav1.ConditionUnknown; waiting != tc.wait {
				t.Fatalf("VolumesDetached %+v after 2 minutes, want waiting %v", c, tc.wait)
			}
			if tc.wait != h.eventOn("Node", "AwaitingVolumeDetachment", "Awaiting deletion of bound volumeattachments (va-1)") {
				t.Errorf("an AwaitingVolumeDetachment event on the node: %v, want %v", !tc.wait, tc.wait)
			}
			if tc.detach {
				h.Cluster.DeleteVolumeAttachment("va-1")
			}
			h.Advance(4*time.Minute, time.Second)
			if nc, _ := h.API.NodeClaim(node.NodeClaim.Name); nc != nil {
				t.Fatalf("the nodeclaim is still there: %+v", nc.Status.Conditions)
			}
			if !h.journaled(journal.KindTermination, "Terminated", node.NodeClaim.Name) {
				t.Error("termination not journaled")
			}
			if tc.unwatched {
				notes := 0
				for _, e := range h.entries(journal.KindTermination) {
					if e.Reason == "VolumesUnknown" && strings.Contains(e.Message, "forbidden") {
						notes++
					}
				}
				if notes != 1 {
					t.Errorf("%d VolumesUnknown entries, want 1", notes)
				}
				return
			}
			var last metav1.ConditionStatus
			for _, e := range h.entries(journal.KindAction) {
				if strings.Contains(e.Message, "VolumesDetached="+string(tc.detached)) {
					last = tc.detached
				}
			}
			if last != tc.detached {
				t.Errorf("VolumesDetached never set %s", tc.detached)
			}
		})
	}
}

// TestStaleDisruptedTaintsInADryRun: a dry run that starts beside stale disrupted taints says it
// would remove each of them, changes none, and goes on past the first.
func TestStaleDisruptedTaintsInADryRun(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(time.Hour))
	h.Deployment("web", 2, enginetest.Resources("1", ""), enginetest.OnePerNode())
	h.Advance(time.Minute, time.Second)
	h.stop()
	nodes := h.managedNodes()
	if len(nodes) != 2 {
		t.Fatalf("%d nodes, want 2", len(nodes))
	}
	for _, sn := range nodes {
		if _, err := h.API.UpdateNode(t.Context(), sn.Name(), func(n *corev1.Node) error {
			n.Spec.Taints = append(n.Spec.Taints, karpv1.DisruptedNoScheduleTaint())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	h.start(dryRun)
	h.Step(time.Second)
	disrupted := karpv1.DisruptedNoScheduleTaint()
	would := 0
	for _, e := range h.entries(journal.KindAction) {
		if e.DryRun && strings.Contains(e.Message, "remove taint "+disrupted.ToString()) {
			would++
		}
	}
	if would != 2 {
		t.Errorf("%d would-remove entries, want one per stale taint (2)", would)
	}
	if err := h.CheckNoDisruptedTaints(); err == nil {
		t.Error("a dry run removed the stale taints")
	}
}
