package demo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/aws"
	"github.com/nodepilot/nodepilot/aws/emulator"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// TestSeedStoryEndToEnd runs the seed story on the real control plane and the emulator, through
// client-go and aws-sdk-go-v2: scale out, scale in, a spot interruption, a budget that blocks, a
// PodDisruptionBudget that holds during a drain, an EC2NodeClass deleted.
//
// Along the way it gathers the metrics nodepilot exports, and the Grafana dashboard it ships
// must name only those.
func TestSeedStoryEndToEnd(t *testing.T) {
	opts := DefaultOptions()
	opts.Dir = t.TempDir()
	registry := prometheus.NewRegistry()
	opts.Registry = registry
	ctx, env := runDemoWith(t, 8*time.Minute, opts)
	kube := env.App.Clients.Kube
	metrics := exported{}
	defer func() {
		if !t.Failed() {
			metrics.gather(t, registry)
			checkDashboard(t, metrics)
		}
	}()

	t.Log("scale out: inflate's five one-CPU pods and api's three land on one new node and run")
	waitFor(t, ctx, env, 2*time.Minute, "inflate and api running", func(s *state.Snapshot) error {
		return running(s, "inflate-", 5, "api-", 3)
	})
	metrics.gather(t, registry)
	inflateNode := nodeOf(t, env.App.Cluster.Snapshot(), "inflate-")
	if !inflateNode.Initialized() || inflateNode.Node.Spec.ProviderID == "" {
		t.Fatalf("node %s: initialized %v, provider id %q", inflateNode.Name(), inflateNode.Initialized(), inflateNode.Node.Spec.ProviderID)
	}

	t.Log("a budget of 0 during its schedule blocks consolidation, and the journal says why")
	patchNodePool(t, ctx, env, inflateNode.NodePool(), `{"spec":{"disruption":{"budgets":[{"nodes":"0","schedule":"* * * * *","duration":"1h"}]}}}`)
	scale(t, ctx, kube, "inflate", 0)
	waitFor(t, ctx, env, 3*time.Minute, "the budget named as the blocker", func(*state.Snapshot) error {
		why, ok := env.App.Journal.WhyNot(inflateNode.Name())
		if !ok || why.Reason != disruption.BlockedBudget || !strings.Contains(why.Message, `"* * * * *"`) {
			return fmt.Errorf("blocker %+v", why)
		}
		return nil
	})

	t.Log("the PodDisruptionBudget of api (minAvailable 2) holds while its node drains")
	patchNodePool(t, ctx, env, inflateNode.NodePool(), `{"spec":{"disruption":{"budgets":[{"nodes":"100%"}]}}}`)
	if err := env.App.Executor.DeleteNodeClaim(ctx, inflateNode.NodeClaim.Name, "(test)"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, env, 3*time.Minute, "the drained node gone and api running elsewhere", func(s *state.Snapshot) error {
		if s.NodeByName(inflateNode.Name()) != nil {
			return fmt.Errorf("node %s still there", inflateNode.Name())
		}
		return running(s, "api-", 3)
	})
	if !journaled(env.App.Journal, journal.KindBlocked, "PDB", "api-pdb") {
		t.Error("the drain never had to wait for api-pdb: the budget was not exercised")
	}
	assertTerminated(t, env, inflateNode.Node.Spec.ProviderID)

	t.Log("a spot interruption drains its node; a replacement runs the pods again")
	scale(t, ctx, kube, "inflate", 5)
	waitFor(t, ctx, env, 2*time.Minute, "inflate running again", func(s *state.Snapshot) error { return running(s, "inflate-", 5) })
	spot := nodeOf(t, env.App.Cluster.Snapshot(), "inflate-")
	if spot.Labels()[karpv1.CapacityTypeLabelKey] != karpv1.CapacityTypeSpot {
		t.Fatalf("inflate's node %s is %s; the story needs spot", spot.Name(), spot.Labels()[karpv1.CapacityTypeLabelKey])
	}
	if err := env.Emulator.Interrupt(emulator.Interruption{Kind: emulator.SpotInterruption, InstanceID: instanceID(spot.Node.Spec.ProviderID)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, env, 3*time.Minute, "inflate running on a replacement", func(s *state.Snapshot) error {
		if s.NodeByName(spot.Name()) != nil {
			return fmt.Errorf("interrupted node %s still there", spot.Name())
		}
		return running(s, "inflate-", 5)
	})
	if !journaled(env.App.Journal, journal.KindInterruption, "SpotInterruption", "deleting nodeclaim") {
		t.Error("the interruption is not journaled")
	}
	metrics.gather(t, registry)

	t.Log("kubectl top: metrics-server serves the api pods' simulated use, a share of their requests")
	checkUsage(t, ctx, env, "api-")
	t.Log("the console reads the same figures, and right-sizes api from its readings")
	checkRightSizing(t, ctx, env)

	t.Log("scale in: the empty node is removed and its instance terminated")
	last := nodeOf(t, env.App.Cluster.Snapshot(), "inflate-")
	scale(t, ctx, kube, "inflate", 0)
	scale(t, ctx, kube, "api", 0)
	waitFor(t, ctx, env, 4*time.Minute, "the emptied node removed", func(s *state.Snapshot) error {
		if s.NodeByName(last.Name()) != nil {
			return fmt.Errorf("node %s still there", last.Name())
		}
		return nil
	})
	assertTerminated(t, env, last.Node.Spec.ProviderID)
	metrics.gather(t, registry)

	t.Log("a static NodePool launches its replicas with no pod asking, and scaled to 0 terminates them")
	staticNodePool(t, ctx, env)

	t.Log("an EC2NodeClass gets Karpenter's termination finalizer; deleted, its instance profile goes with it")
	terminateNodeClass(t, ctx, env)
	for _, e := range env.App.Journal.Entries(0) {
		if e.Kind != journal.KindBlocked || e.Forbids { // as the Decisions pane shows them
			t.Logf("journal %s %-14s %-22s %s", e.Time.Format("15:04:05"), e.Kind, e.Reason, e.Message)
		}
	}
}

// checkUsage waits until metrics.k8s.io serves usage for every running pod whose name starts
// with prefix, within the shares of its requests the demo's load gives (loadShare), and for the
// nodes they run on.
func checkUsage(t *testing.T, ctx context.Context, env *Environment, prefix string) {
	t.Helper()
	client, err := metricsclient.NewForConfig(env.Cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	api := client.MetricsV1beta1()
	waitFor(t, ctx, env, 2*time.Minute, "usage of the "+prefix+" pods", func(s *state.Snapshot) error {
		seen := 0
		for _, p := range s.Pods {
			if !strings.HasPrefix(p.Name, prefix) || p.Status.Phase != corev1.PodRunning {
				continue
			}
			m, err := api.PodMetricses(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("pod %s: %w", p.Name, err)
			}
			req := p.Spec.Containers[0].Resources.Requests
			for _, c := range m.Containers {
				for name, within := range map[corev1.ResourceName][2]float64{corev1.ResourceCPU: {0.14, 0.76}, corev1.ResourceMemory: {0.49, 0.71}} {
					used, asked := c.Usage[name], req[name]
					if share := used.AsApproximateFloat64() / asked.AsApproximateFloat64(); share < within[0] || share > within[1] {
						return fmt.Errorf("pod %s uses %s of %s %s requested (%.0f%%), want %.0f%%-%.0f%%", p.Name, used.String(), asked.String(), name, share*100, within[0]*100, within[1]*100)
					}
				}
			}
			if _, err := api.NodeMetricses().Get(ctx, p.Spec.NodeName, metav1.GetOptions{}); err != nil {
				return fmt.Errorf("node %s: %w", p.Spec.NodeName, err)
			}
			seen++
		}
		if seen == 0 {
			return fmt.Errorf("no running %s pod", prefix)
		}
		return nil
	})
}

// checkRightSizing waits until the console's backend has usage for the running api pods and
// right-sizes api: its use (a share of its requests, from the demo's load) calls for less than
// it requests, and planning the fleet with that is simulated and no dearer.
func checkRightSizing(t *testing.T, ctx context.Context, env *Environment) {
	t.Helper()
	backend := env.App.Console("demo")
	waitFor(t, ctx, env, 3*time.Minute, "api right-sized from its use", func(s *state.Snapshot) error {
		u := backend.Usage()
		for _, p := range s.Pods {
			if strings.HasPrefix(p.Name, "api-") && p.Status.Phase == corev1.PodRunning && u.Pods[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}].CPU == 0 {
				return fmt.Errorf("no usage of pod %s in the console (%s)", p.Name, u.Status)
			}
		}
		r, err := backend.RightSizing(ctx)
		if err != nil {
			return err
		}
		for i := range r.Workloads {
			w := &r.Workloads[i]
			if w.Key.Kind != "Deployment" || w.Key.Name != "api" {
				continue
			}
			switch req, fit := w.Request(), w.Suggested(); {
			case w.Why != "":
				return errors.New(w.Why)
			case fit.CPU >= req.CPU || fit.Mem >= req.Mem || !w.Simulated || w.Saving < 0 || r.After > r.Before:
				return fmt.Errorf("api requests %+v, fits %+v, saves $%.3f/h (simulated %v); fleet $%.3f → $%.3f",
					req, fit, w.Saving, w.Simulated, r.Before, r.After)
			}
			return nil
		}
		return fmt.Errorf("no Deployment api among %d workloads", len(r.Workloads))
	})
}

// staticNodePool creates a static NodePool of two replicas like the demo's first NodePool, waits
// for both nodes to register on emulator instances, scales it to 0 and checks the instances go.
func staticNodePool(t *testing.T, ctx context.Context, env *Environment) {
	t.Helper()
	pools := env.App.Cluster.Snapshot().NodePools
	if len(pools) == 0 {
		t.Fatal("no NodePool in the demo")
	}
	fixed := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "fixed"}, Spec: *pools[0].Spec.DeepCopy()}
	fixed.Spec.Replicas, fixed.Spec.Limits = ptr.To[int64](2), nil
	if _, err := env.App.Clients.NodePools.Create(ctx, fixed); err != nil {
		t.Fatal(err)
	}
	var providerIDs []string
	waitFor(t, ctx, env, 2*time.Minute, "two static nodes registered and initialized", func(s *state.Snapshot) error {
		providerIDs = nil
		for _, n := range s.Nodes {
			if n.NodePool() == "fixed" && n.Node != nil && n.Initialized() {
				providerIDs = append(providerIDs, n.Node.Spec.ProviderID)
			}
		}
		if len(providerIDs) != 2 {
			return fmt.Errorf("%d of 2", len(providerIDs))
		}
		return nil
	})
	patchNodePool(t, ctx, env, "fixed", `{"spec":{"replicas":0}}`)
	waitFor(t, ctx, env, 2*time.Minute, "the static nodes gone", func(s *state.Snapshot) error {
		for _, n := range s.Nodes {
			if n.NodePool() == "fixed" {
				return fmt.Errorf("%s still there", n.Name())
			}
		}
		return nil
	})
	for _, id := range providerIDs {
		assertTerminated(t, env, id)
	}
	if err := env.App.Clients.NodePools.Delete(ctx, "fixed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// terminateNodeClass creates an EC2NodeClass like the demo's first, waits for its instance
// profile and its termination finalizer, deletes it, and checks that it and its profile go.
func terminateNodeClass(t *testing.T, ctx context.Context, env *Environment) {
	t.Helper()
	classes := aws.NodeClasses(env.App.Cluster.Snapshot())
	if len(classes) == 0 {
		t.Fatal("no EC2NodeClass in the demo")
	}
	scratch := &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "scratch"}, Spec: *classes[0].Spec.DeepCopy()}
	scratch.Spec.Role, scratch.Spec.InstanceProfile = cmp.Or(classes[0].Spec.Role, "KarpenterNodeRole"), nil
	if _, err := env.App.Clients.NodeClasses.Create(ctx, scratch); err != nil {
		t.Fatal(err)
	}
	var profile string
	waitFor(t, ctx, env, time.Minute, "the scratch class's instance profile, finalizer and hash annotations", func(s *state.Snapshot) error {
		for _, nc := range aws.NodeClasses(s) {
			if nc.Name == "scratch" && nc.Status.InstanceProfile != "" && slices.Contains(nc.Finalizers, awsv1.TerminationFinalizer) &&
				nc.Annotations[awsv1.AnnotationEC2NodeClassHash] == env.App.Provider.NodeClassHash(nc) && nc.Annotations[awsv1.AnnotationEC2NodeClassHashVersion] == awsv1.EC2NodeClassHashVersion {
				profile = nc.Status.InstanceProfile
				return nil
			}
		}
		return fmt.Errorf("not yet")
	})
	if !slices.Contains(env.Emulator.InstanceProfiles(), profile) {
		t.Fatalf("instance profile %s is not in the emulator: %v", profile, env.Emulator.InstanceProfiles())
	}
	if err := env.App.Clients.NodeClasses.Delete(ctx, "scratch", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, env, time.Minute, "the scratch class gone", func(s *state.Snapshot) error {
		for _, nc := range s.NodeClasses {
			if nc.GetName() == "scratch" {
				return fmt.Errorf("still there, finalizers %v", nc.GetFinalizers())
			}
		}
		return nil
	})
	if slices.Contains(env.Emulator.InstanceProfiles(), profile) {
		t.Errorf("instance profile %s outlived its EC2NodeClass", profile)
	}
}

// runDemo starts the demo environment and runs nodepilot in it for at most timeout; when the
// test ends, nodepilot must stop cleanly and the environment is closed.
func runDemo(t *testing.T, timeout time.Duration) (context.Context, *Environment) {
	opts := DefaultOptions()
	opts.Dir = t.TempDir()
	return runDemoWith(t, timeout, opts)
}

func runDemoWith(t *testing.T, timeout time.Duration, opts Options) (context.Context, *Environment) {
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	env, err := Start(ctx, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	done := make(chan error, 1)
	go func() { done <- env.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("nodepilot stopped with %v", err)
		}
	})
	return ctx, env
}

func waitFor(t testing.TB, ctx context.Context, env *Environment, timeout time.Duration, what string, cond func(*state.Snapshot) error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	changes := env.App.Cluster.Subscribe()
	var err error
	for time.Now().Before(deadline) {
		if err = cond(env.App.Cluster.Snapshot()); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v (last: %v)", what, ctx.Err(), err)
		case <-changes:
		case <-time.After(time.Second):
		}
	}
	t.Fatalf("%s did not happen within %s: %v\nstatus: %s", what, timeout, err, env.Status())
}

// running checks that, for each prefix and count, that many pods of that name run on a node.
func running(s *state.Snapshot, prefixAndCount ...any) error {
	for i := 0; i+1 < len(prefixAndCount); i += 2 {
		prefix, want := prefixAndCount[i].(string), prefixAndCount[i+1].(int)
		n := 0
		for _, p := range s.Pods {
			if strings.HasPrefix(p.Name, prefix) && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				n++
			}
		}
		if n != want {
			return fmt.Errorf("%d %s pods running, want %d", n, prefix, want)
		}
	}
	return nil
}

func nodeOf(t testing.TB, s *state.Snapshot, prefix string) *state.Node {
	t.Helper()
	for _, n := range s.Nodes {
		for _, p := range n.Pods {
			if strings.HasPrefix(p.Name, prefix) && n.Node != nil && n.Managed() {
				return n
			}
		}
	}
	t.Fatalf("no managed node runs %s pods", prefix)
	return nil
}

func scale(t testing.TB, ctx context.Context, kube kubernetes.Interface, name string, replicas int32) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas)
	if _, err := kube.AppsV1().Deployments("default").Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func patchNodePool(t testing.TB, ctx context.Context, env *Environment, name, patch string) {
	t.Helper()
	if _, err := env.App.Clients.NodePools.Patch(ctx, name, []byte(patch), false); err != nil {
		t.Fatal(err)
	}
}

func assertTerminated(t *testing.T, env *Environment, providerID string) {
	t.Helper()
	id := instanceID(providerID)
	for _, i := range env.Emulator.Instances() {
		if i.ID == id && i.State != "terminated" && i.State != "shutting-down" {
			t.Errorf("instance %s is %s, want terminated", id, i.State)
		}
	}
}

func instanceID(providerID string) string { return providerID[strings.LastIndex(providerID, "/")+1:] }

func journaled(j *journal.Journal, kind journal.Kind, reason journal.Reason, text string) bool {
	for _, e := range j.Entries(0) {
		if e.Kind == kind && e.Reason == reason && strings.Contains(e.Message, text) {
			return true
		}
	}
	return false
}
