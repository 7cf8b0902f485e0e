package model_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

func input(f *uitest.Fake, cache *model.Cache) model.Input {
	return model.Input{Snapshot: f.Snapshot(), Journal: f.Journal(), Budgets: f.Budgets, Price: f.Price,
		Provisioning: f.Provisioning(), Now: f.Clock.Now(), Cache: cache}
}

func spec(k model.Kind) model.Spec {
	return model.Spec{Kind: k, Query: render.Query{Sort: render.Unsorted()}}
}

// text is a table as text, one row a line.
func text(t *render.Table) string {
	var b strings.Builder
	for _, r := range t.Rows {
		b.WriteString(strings.Join(r.Cells, "|"))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestFleet(t *testing.T) {
	w := model.New(input(uitest.New(uitest.Small()), nil))
	f := w.Fleet
	if f.Nodes != 12 || f.Pods != 53 || f.Pending != 5 || f.ByCapacityType["spot"] != 7 || f.ByCapacityType["on-demand"] != 5 {
		t.Errorf("counts: %+v", f)
	}
	sum := 0.0
	for _, n := range w.Nodes {
		sum += n.PerHour
	}
	if f.PerHour != sum || render.Dollars(f.PerHour) != "$2.268" {
		t.Errorf("fleet $%v/h, nodes sum to $%v/h", f.PerHour, sum)
	}
	if !slices.Equal(f.Sources, []string{"pricing-api", "synthetic"}) || !f.Synthetic || f.Unpriced != 0 {
		t.Errorf("prices: %+v", f)
	}
	// The default pool has eight nodes; the one marked for deletion (4 CPUs) no longer counts.
	if p, ok := w.Pool("default"); !ok || p.Nodes != 7 || p.CPU != 16000 {
		t.Errorf("default pool: %+v", p)
	}
	if p, _ := w.Pool("gpu"); p.Nodes != 1 || p.PerHour != 1.006 {
		t.Errorf("gpu pool: %+v", p)
	}
}

func TestPendingSaysWhy(t *testing.T) {
	w := model.New(input(uitest.New(uitest.Small()), nil))
	var refused, launching, waiting int
	for _, p := range w.Pending {
		switch {
		case p.Blocked:
			refused++
			if !strings.Contains(p.Why, "gpu: TaintNotTolerated") || p.Fix == "" {
				t.Errorf("refused pod: %+v", p)
			}
		case strings.HasPrefix(p.Why, "launching: new spot m6i.xlarge from default"):
			launching++
		case strings.HasPrefix(p.Why, "waiting"):
			waiting++
		}
		if p.CPU == 0 || p.Mem == 0 {
			t.Errorf("pod %s has no requests", p.Pod.Name)
		}
	}
	if refused != 2 || launching != 2 || waiting != 1 {
		t.Errorf("refused %d, launching %d, waiting %d", refused, launching, waiting)
	}
}

// TestCacheChangesNothing builds Worlds with and without a cache, before and after pods and
// nodes change: the tables are the same.
func TestCacheChangesNothing(t *testing.T) {
	f := uitest.New(uitest.Small())
	cache := model.NewCache()
	model.New(input(f, cache))
	for round := range 3 {
		f.Churn(7)
		if round == 1 {
			f.Cluster.MarkForDeletion(f.Snapshot().Nodes[0].NodeClaim.Name)
		}
		cached, fresh := model.New(input(f, cache)), model.New(input(f, nil))
		for _, k := range []model.Kind{model.KindPending, model.KindNodePools, model.KindNodes, model.KindNodeClaims, model.KindPods} {
			if a, b := text(cached.Table(spec(k))), text(fresh.Table(spec(k))); a != b {
				t.Fatalf("round %d, %s differ with a cache:\n%s\nwithout:\n%s", round, k, a, b)
			}
		}
	}
}

func TestScopes(t *testing.T) {
	w := model.New(input(uitest.New(uitest.Small()), nil))
	nodes := w.Table(model.Spec{Kind: model.KindNodes, Scope: model.Scope{NodePool: "on-demand"}, Query: render.Query{Sort: render.Unsorted()}})
	if nodes.Total != 3 {
		t.Errorf("on-demand has %d nodes", nodes.Total)
	}
	// Grouped: a capacity type header, a zone header per zone, then the nodes.
	if r := nodes.Rows[0]; r.Level != render.LevelGroup || r.Cells[render.NodeColName] != "on-demand" || r.Cells[render.NodeColType] != "3 nodes" {
		t.Errorf("first row: %+v", r.Cells)
	}
	n := w.Node("ip-10-0-0-10.ec2.internal")
	pods := w.Table(model.Spec{Kind: model.KindPods, Scope: model.Scope{Node: n.Name}, Query: render.Query{Sort: render.Unsorted()}})
	if pods.Total != n.Pods || pods.Total == 0 {
		t.Errorf("%s: %d pod rows for %d pods", n.Name, pods.Total, n.Pods)
	}
	var decision *journal.Entry
	for _, e := range w.Entries {
		if e.Method == "SingleNodeConsolidation" {
			decision = e
		}
	}
	touched := w.Table(model.Spec{Kind: model.KindTouched, Scope: model.Scope{Entry: decision.Seq}, Query: render.Query{Sort: render.Unsorted()}})
	if touched.Total != len(decision.Nodes)+len(decision.Pods) || touched.Rows[0].Cells[0] != "Node" {
		t.Errorf("touched: %s", text(touched))
	}
}

func TestNodeSubtotals(t *testing.T) {
	w := model.New(input(uitest.New(uitest.Small()), nil))
	tb := w.Table(spec(model.KindNodes))
	var pods, objects int
	for _, r := range tb.Rows {
		switch r.Level {
		case render.LevelGroup:
			n := 0
			for _, m := range w.Nodes {
				if m.CapacityType == r.Cells[render.NodeColName] {
					n += m.Pods
				}
			}
			pods += n
			if r.Cells[render.NodeColPods] != strconv.Itoa(n) {
				t.Errorf("%s: pods %s, want %d", r.Cells[render.NodeColName], r.Cells[render.NodeColPods], n)
			}
		case render.LevelObject:
			objects++
		}
	}
	if objects != 12 || pods != 48 {
		t.Errorf("%d node rows, %d pods in the subtotals", objects, pods)
	}
}
