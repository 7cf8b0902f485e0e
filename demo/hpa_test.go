package demo

import (
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/state"
)

// TestScaledShare: the pods an HPA scales split one load, so the replicas the HPA wants
// (utilization over target, times the pods) follow the load from 1 to maxReplicas whatever runs.
func TestScaledShare(t *testing.T) {
	const target, maxReplicas = 0.2, 6
	start := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	fewest, most := maxReplicas, 0
	for step := range 90 {
		at := start.Add(time.Duration(step) * loadCycle / 90)
		var want []int
		for _, running := range []int{1, 3, 6} {
			share := scaledShare("default/web", at, target, maxReplicas, running)
			want = append(want, int(float64(running)*share/target+0.999))
		}
		if want[0] != want[1] || want[1] != want[2] {
			t.Fatalf("at %s the HPA would want %v replicas with 1, 3 and 6 running: the load depends on the pods", at, want)
		}
		fewest, most = min(fewest, want[0]), max(most, want[0])
	}
	if fewest != 1 || most != maxReplicas {
		t.Errorf("over a cycle the HPA wants %d to %d replicas, want 1 to %d", fewest, most, maxReplicas)
	}
}

// loadPeak is the first time from start at which deployment's load is at its highest (lowest
// when low is true).
func loadPeak(deployment string, start time.Time, low bool) time.Time {
	best, at := 0.0, start
	for s := range int(loadCycle / time.Second) {
		t := start.Add(time.Duration(s) * time.Second)
		w := loadWave(deployment, t)
		if low {
			w = -w
		}
		if s == 0 || w > best {
			best, at = w, t
		}
	}
	return at
}

// TestHPAScalesWeb: the real kube-controller-manager's HPA, on metrics-server's figures of the
// load the demo simulates, scales web out when its load peaks; nodepilot launches nodes of the
// web NodePool for the pending replicas; when the load falls the HPA scales web in and nodepilot
// consolidates the emptied nodes away.
func TestHPAScalesWeb(t *testing.T) {
	files := fstest.MapFS{}
	for _, name := range []string{"08-ec2nodeclass-default.yaml", "12-hpa-web.yaml"} {
		data, err := fs.ReadFile(manifestFiles, "manifests/"+name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	opts := DefaultOptions()
	opts.Dir, opts.Manifests = t.TempDir(), files
	load := clocktesting.NewFakePassiveClock(loadPeak("default/web", time.Now(), false))
	opts.LoadClock = load
	ctx, env := runDemoWith(t, 10*time.Minute, opts)
	hpas := env.Clients().Kube.AutoscalingV2().HorizontalPodAutoscalers("default")

	webNodes := func(s *state.Snapshot) int {
		n := 0
		for _, node := range s.Nodes {
			if node.NodePool() == "web" && node.Node != nil {
				n++
			}
		}
		return n
	}
	t.Log("the load peaks: the HPA scales web to its maximum and nodepilot launches web nodes for it")
	waitFor(t, ctx, env, 4*time.Minute, "web scaled out and running", func(s *state.Snapshot) error {
		hpa, err := hpas.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if hpa.Status.DesiredReplicas != 6 {
			return fmt.Errorf("the HPA wants %d replicas (current metrics %v)", hpa.Status.DesiredReplicas, hpa.Status.CurrentMetrics)
		}
		if err := running(s, "web-", 6); err != nil {
			return err
		}
		if n := webNodes(s); n < 2 {
			return fmt.Errorf("%d web nodes, want more than the first", n)
		}
		return nil
	})
	peakNodes := webNodes(env.App.Cluster.Snapshot())
	if !journaled(env.App.Journal, journal.KindProvisioning, "NodeClaimCreated", "nodeclaim web-") {
		t.Error("no web NodeClaim creation journaled")
	}

	t.Log("the load falls: the HPA scales web in, and nodepilot consolidates the emptied nodes")
	load.SetTime(loadPeak("default/web", load.Now(), true))
	waitFor(t, ctx, env, 5*time.Minute, "web scaled in and consolidated", func(s *state.Snapshot) error {
		if err := running(s, "web-", 1); err != nil {
			return err
		}
		if n := webNodes(s); n != 1 {
			return fmt.Errorf("%d web nodes, want 1 (there were %d at the peak)", n, peakNodes)
		}
		return nil
	})
	consolidated := false
	for _, e := range env.App.Journal.Entries(0) {
		consolidated = consolidated || e.Kind == journal.KindDisruption && e.NodePool == "web" && !e.DryRun
	}
	if !consolidated {
		t.Error("no disruption decision journaled for the web NodePool")
	}
	if !journaled(env.App.Journal, journal.KindWorkload, "HorizontalPodAutoscaler", "HorizontalPodAutoscaler default/web scales Deployment web from") {
		t.Error("the HPA's scaling is not journaled")
	}

	t.Log("the seed's KEDA cron pattern, as the demo plays it: php-apache goes from 0 to 1 replica inside its schedule")
	data, err := fs.ReadFile(manifestFiles, "manifests/13-keda-cron.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Apply(ctx, fstest.MapFS{"13-keda-cron.yaml": &fstest.MapFile{Data: data}}); err != nil {
		t.Fatal(err)
	}
	cron, err := newCronScaler(scaledObject(t))
	if err != nil {
		t.Fatal(err)
	}
	inside := time.Date(2026, 12, 4, 10, 16, 0, 0, cron.loc)
	if err := env.playCron(ctx, cron, inside); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, env, 3*time.Minute, "php-apache running on a web node", func(s *state.Snapshot) error {
		if err := running(s, "php-apache-", 1); err != nil {
			return err
		}
		if pool := nodeOf(t, s, "php-apache-").NodePool(); pool != "web" {
			return fmt.Errorf("php-apache runs on NodePool %q", pool)
		}
		return nil
	})
	if !journaled(env.App.Journal, journal.KindWorkload, "ScaledObject", "ScaledObject default/php-apache-cron-scaled (KEDA's cron trigger, played by the demo) scales Deployment php-apache from 0 to 1 replicas: inside its schedule") {
		t.Error("the cron scaling is not journaled")
	}
}
