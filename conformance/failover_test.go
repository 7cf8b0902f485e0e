package conformance

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/nodepilot/nodepilot/charts"
	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// The release the failover test installs.
const (
	releaseNamespace = "nodepilot"
	releaseName      = "nodepilot"
)

// TestInstalledFailover installs nodepilot from its chart (rendered with Helm's SDK, applied
// with server-side apply) and runs the chart's container as two replicas, each a nodepilot
// process acting as the chart's ServiceAccount (a TokenRequest token, so its RBAC holds), as a
// Deployment would run them. In each round a batch of pods that need a node each arrives, the
// leader is killed with SIGKILL once the batch's first instance launched (its other launches in
// flight), the standby takes over within the Lease's duration, and a new replica replaces the
// dead one: every batch is launched exactly once (one NodeClaim and one instance per pod, no
// instance launched twice or left behind). At the end the leader gets SIGTERM and releases the
// Lease at once, so the last standby leads without waiting for it to expire.
func TestInstalledFailover(t *testing.T) {
	bin := buildNodepilot(t)
	c := start(t, 8*time.Minute, scenario{"failover", []string{"common", "failover"}, 0, ""})
	opts := c.env.KarpenterOptions()
	container := install(t, c, map[string]any{"settings": map[string]any{
		"clusterName": opts.ClusterName, "interruptionQueue": opts.InterruptionQueue}})
	if err := c.env.Apply(c.ctx, manifests(t, c.scenario.dirs[1:])); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := c.env.Cluster.ServiceAccountKubeconfig(c.ctx, releaseNamespace, container.serviceAccount)
	if err != nil {
		t.Fatal(err)
	}
	replicas := 0
	replica := func() *localcluster.Controller {
		t.Helper()
		replicas++
		args := append(slices.Clone(container.args), "--kubeconfig", kubeconfig)
		k, err := c.env.Cluster.StartReplica(c.ctx, fmt.Sprintf("nodepilot-%d", replicas), bin, opts, args,
			[]string{"POD_NAMESPACE=" + releaseNamespace})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	leases := kubernetes.NewForConfigOrDie(c.env.Cluster.RESTConfig()).CoordinationV1().Leases(releaseNamespace)
	holder := func() string {
		lease, err := leases.Get(c.ctx, kube.LeaseName, metav1.GetOptions{})
		if err != nil || lease.Spec.HolderIdentity == nil {
			return ""
		}
		return *lease.Spec.HolderIdentity
	}
	// waitHolder polls the Lease until its holder is neither empty nor not, and says when.
	waitHolder := func(not string, timeout time.Duration) (string, time.Time) {
		t.Helper()
		deadline := time.Now().Add(timeout)
		for {
			if h := holder(); h != "" && h != not {
				return h, time.Now()
			}
			if time.Now().After(deadline) {
				t.Fatalf("no replica other than %q took the Lease within %s (logs in %s)", not, timeout, c.env.Cluster.Dir)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	leader := replica()
	leaderID, _ := waitHolder("", time.Minute)
	standby := replica()

	// Where each round's kill falls: before EC2 launched anything (CreateFleet held before it is
	// served: the new leader must count the dead one's NodeClaims and launch each once), after EC2
	// launched but before the leader heard (the answer held: launching again must return the
	// same instances, by the fleet's client token), and wherever it falls without help.
	const perRound = 2
	type delay struct {
		set func(op string, d time.Duration) error
		d   time.Duration
	}
	em := c.env.Emulator
	rounds := []struct {
		kill          string
		delay         delay
		killCondition func(before, now fleet) bool
	}{
		{"its NodeClaims created, their CreateFleet calls not yet served", delay{em.SetLatency, 5 * time.Second},
			func(before, now fleet) bool { return len(now.claims) == len(before.claims)+perRound }},
		{"its instances launched, CreateFleet's answers not yet heard", delay{em.SetAnswerDelay, 5 * time.Second},
			func(before, now fleet) bool { return now.launched == before.launched+perRound }},
		{"its first instance launched", delay{em.SetLatency, 0}, func(before, now fleet) bool { return now.launched > before.launched }},
	}
	var takeovers []time.Duration
	for i, round := range rounds {
		if err := round.delay.set("CreateFleet", round.delay.d); err != nil {
			t.Fatal(err)
		}
		before := c.fleet()
		if err := c.env.Scale(c.ctx, "default/spread", perRound); err != nil {
			t.Fatal(err)
		}
		at := c.waitFor(2*time.Minute, fmt.Sprintf("round %d: %s", i+1, round.kill), func(f fleet) error {
			if !round.killCondition(before, f) {
				return fmt.Errorf("%d NodeClaims, %d instances launched", len(f.claims), f.launched)
			}
			return nil
		})
		if err := c.env.Cluster.KillController(leader); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		if err := round.delay.set("CreateFleet", 0); err != nil {
			t.Fatal(err)
		}
		// client-go's standby polls the Lease every RetryPeriod, jittered up to 2.2 times. It
		// times the Lease from when it saw the last renewal (up to one poll after the kill) and
		// takes it at its first poll after that plus LeaseDuration.
		poll := kube.RetryPeriod * 22 / 10
		newID, led := waitHolder(leaderID, poll+kube.LeaseDuration+poll)
		takeovers = append(takeovers, led.Sub(killed))
		t.Logf("round %d: leader killed with the batch's NodeClaims at %d of %d created, %d of them with their instance recorded, %d of %d instances launched; standby led %.1f s later",
			i+1, len(at.claims)-len(before.claims), perRound, countRecorded(at)-countRecorded(before), at.launched-before.launched, perRound, led.Sub(killed).Seconds())
		leader, leaderID, standby = standby, newID, replica()
		want := (i + 1) * perRound
		c.waitFor(3*time.Minute, fmt.Sprintf("round %d: every pod running on a node of its own", i+1), func(f fleet) error {
			if f.running != want || f.pending != 0 || len(f.claims) != want || len(f.instances) != want || f.launched != want {
				return fmt.Errorf("%d pods running, %d pending, %d NodeClaims, %d live instances of %d launched; want %d of each",
					f.running, f.pending, len(f.claims), len(f.instances), f.launched, want)
			}
			return nil
		})
	}
	slices.Sort(takeovers)
	t.Logf("takeover after SIGKILL: median %.1f s over %d kills (%v); Lease duration %s", takeovers[len(takeovers)/2].Seconds(), len(takeovers), takeovers, kube.LeaseDuration)

	// SIGTERM: the leader releases the Lease as it exits, so the standby leads within a retry
	// period instead of a Lease's duration.
	term := time.Now()
	if err := c.env.Cluster.StopController(leader); err != nil {
		t.Fatal(err)
	}
	exited := time.Since(term)
	if h := holder(); h == leaderID {
		t.Errorf("the leader exited %.1f s after SIGTERM still holding the Lease", exited.Seconds())
	}
	_, led := waitHolder(leaderID, kube.LeaseDuration/2)
	t.Logf("SIGTERM: the leader exited %.1f s later, having released the Lease; the standby led %.1f s after the signal", exited.Seconds(), led.Sub(term).Seconds())
	want := len(rounds) * perRound
	if f := c.fleet(); len(f.claims) != want || f.launched != want {
		t.Errorf("after the hand-over: %d NodeClaims, %d instances launched; want %d", len(f.claims), f.launched, want)
	}
}

// countRecorded counts the NodeClaims that recorded their instance.
func countRecorded(f fleet) int {
	n := 0
	for _, nc := range f.claims {
		if nc.providerID != "" {
			n++
		}
	}
	return n
}

// chartContainer is what the chart's Deployment runs: its container's arguments and the
// ServiceAccount it runs as.
type chartContainer struct {
	args           []string
	serviceAccount string
}

// install renders the chart with values and applies every object but its Deployment with
// server-side apply, in the chart's namespace; the Deployment's container is returned, for the
// test to run as processes (no kubelet here runs pods).
func install(t *testing.T, c *cluster, values map[string]any) chartContainer {
	t.Helper()
	objs, err := charts.Render(releaseName, releaseNamespace, values)
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.env.Cluster.RESTConfig()
	client := kubernetes.NewForConfigOrDie(cfg)
	if _, err := client.CoreV1().Namespaces().Create(c.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: releaseNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	dyn := dynamic.NewForConfigOrDie(cfg)
	var out chartContainer
	for _, obj := range objs {
		if obj.GetKind() == "Deployment" {
			var d appsv1.Deployment
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &d); err != nil {
				t.Fatal(err)
			}
			spec := d.Spec.Template.Spec
			// The command line after the binary: the command's tail, if the chart sets one
			// (else the image's entrypoint is the binary), then the arguments.
			ctr := spec.Containers[0]
			argv := append(slices.Clone(ctr.Command), ctr.Args...)
			if len(ctr.Command) > 0 {
				argv = argv[1:]
			}
			out = chartContainer{args: argv, serviceAccount: spec.ServiceAccountName}
			continue
		}
		m, err := mapper.RESTMapping(obj.GroupVersionKind().GroupKind(), obj.GroupVersionKind().Version)
		if err != nil {
			t.Fatalf("%s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
		var r dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if obj.GetNamespace() != "" {
			r = dyn.Resource(m.Resource).Namespace(obj.GetNamespace())
		}
		if _, err := r.Apply(c.ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "helm", Force: true}); err != nil {
			t.Fatalf("server-side apply of %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
	if out.serviceAccount == "" {
		t.Fatal("the chart rendered no Deployment with a ServiceAccount")
	}
	return out
}

// buildNodepilot builds nodepilot's binary from this tree, with the Makefile's flags (the
// environment's GOFLAGS).
func buildNodepilot(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "nodepilot")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/nodepilot/nodepilot").CombinedOutput(); err != nil {
		t.Fatalf("building nodepilot: %v\n%s", err, out)
	}
	return bin
}
