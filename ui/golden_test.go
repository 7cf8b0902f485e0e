package ui_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

// TestGoldenViews draws every view of the small cluster with the default skin and compares
// the screen, text and colors, with testdata/golden. go test ./ui -run Golden -update rewrites
// the files.
func TestGoldenViews(t *testing.T) {
	for _, tc := range []struct {
		name, keys string
		w, h       int
	}{
		{"dashboard", "", 140, 40},
		{"dashboard-narrow", "", 90, 30},
		{"dashboard-narrow-nodes", "<Tab><Tab>", 90, 30},
		{"pending", ":pending<Enter>", 140, 30},
		{"nodepools", ":np<Enter>", 140, 20},
		{"nodes", ":nodes<Enter>", 160, 34},
		{"nodes-sorted-by-cost", ":nodes<Enter>C", 160, 34},
		{"nodeclaims", ":nc<Enter>", 140, 24},
		{"pods", ":pods<Enter>", 120, 30},
		{"pods-of-node", ":nodes<Enter><Down><Down><Enter>", 120, 20},
		{"decisions", ":decisions<Enter>", 180, 24},
		{"decision-touched", ":decisions<Enter><Down><Down><Down><Down><Down><Down><Down><Down><Enter>", 120, 20},
		{"interruptions", ":interruptions<Enter>", 140, 20},
		{"events", ":events<Enter>", 160, 34},
		{"skins", ":skins<Enter>", 100, 20},
		{"ctx", ":ctx<Enter>", 100, 20},
		{"confirm-ctx", ":ctx staging<Enter>", 120, 24},
		{"explain-pod", ":pending<Enter><Down>x", 150, 40},
		{"explain-node", ":nodes<Enter>/ip-10-0-0-10<Enter>x", 150, 30},
		{"explain-node-budget", ":nodes<Enter><Down><Down>x", 150, 30},
		{"explain-nodepool", ":np<Enter><Down><Down>x", 150, 26},
		{"describe-node", ":nodes<Enter><Down><Down>d", 120, 44},
		{"describe-pod", ":pods<Enter>d", 120, 40},
		{"yaml-nodepool", ":np<Enter>y", 120, 50},
		{"help-nodes", ":nodes<Enter>?", 150, 50},
		{"prompt-completion", ":nodec", 120, 16},
		{"filter-prompt", ":pods<Enter>/web", 120, 20},
		{"confirm-drain", ":nodes<Enter><Down><Down>r", 120, 24},
		{"rightsizing", ":rs<Enter>", 200, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := small(t, tc.w, tc.h)
			h.keys(tc.keys)
			h.golden(tc.name)
		})
	}
}

// TestGoldenModes draws the dashboard and the help in read-only and dry-run mode, and a demo.
func TestGoldenModes(t *testing.T) {
	for _, tc := range []struct {
		name string
		info ui.Info
		keys string
	}{
		{"readonly-nodes", ui.Info{Context: "prod", Cluster: "prod-eu", KubernetesVersion: "v1.32.4", ReadOnly: true}, ":nodes<Enter>"},
		{"readonly-help", ui.Info{Context: "prod", Cluster: "prod-eu", KubernetesVersion: "v1.32.4", ReadOnly: true}, ":nodes<Enter>?"},
		{"dryrun-nodes", ui.Info{Context: "staging", Cluster: "staging", KubernetesVersion: "v1.33.1", DryRun: true}, ":nodes<Enter>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := uitest.New(uitest.Small())
			f.SetInfo(tc.info)
			h := newHarness(t, f, f, skin.Default(), 140, 30)
			h.keys(tc.keys)
			h.golden(tc.name)
		})
	}
	t.Run("demo-dashboard", func(t *testing.T) {
		d := uitest.NewDemo(uitest.Small())
		h := newHarness(t, d, d.Fake, skin.Default(), 140, 40)
		h.golden("demo-dashboard")
	})
}

// TestGoldenSkins draws the dashboard and the nodes view with every shipped skin and the six
// k9s skins, loaded unchanged.
func TestGoldenSkins(t *testing.T) {
	skins := map[string]*skin.Skin{}
	for _, name := range skin.Shipped() {
		s, err := skin.LoadShipped(name)
		if err != nil {
			t.Fatalf("shipped skin %s: %v", name, err)
		}
		skins[name] = s
	}
	k9s, err := filepath.Glob(filepath.Join("skin", "testdata", "k9s", "*.yaml"))
	if err != nil || len(k9s) != 6 {
		t.Fatalf("want the six k9s skins, got %v %v", k9s, err)
	}
	for _, path := range k9s {
		s, err := skin.Load(path)
		if err != nil {
			t.Fatalf("k9s skin %s: %v", path, err)
		}
		skins["k9s-"+strings.TrimSuffix(filepath.Base(path), ".yaml")] = s
	}
	for name, s := range skins {
		t.Run(name, func(t *testing.T) {
			f := uitest.New(uitest.Small())
			h := newHarness(t, f, f, s, 120, 36)
			h.skin = name
			h.golden("skin-" + name + "-dashboard")
			h.keys(":nodes<Enter>")
			h.golden("skin-" + name + "-nodes")
		})
	}
}

// TestGoldenTrendStrip: the dashboard's strip follows the fleet step by step: nodes going away
// lower the node count and the cost, and the lines keep their history.
func TestGoldenTrendStrip(t *testing.T) {
	f := uitest.New(uitest.Small())
	h := newHarness(t, f, f, skin.Default(), 140, 40)
	h.draw()
	for _, sn := range f.Snapshot().Nodes[len(f.Snapshot().Nodes)-6:] {
		f.Advance(model.TrendStep)
		if sn.NodeClaim != nil {
			f.Cluster.DeleteNodeClaim(sn.NodeClaim.Name)
		}
		f.Cluster.DeleteNode(sn.Name())
		h.draw()
	}
	h.golden("dashboard-trend")
}
