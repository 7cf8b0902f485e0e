package ui_test

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

// input is what the console builds a World from, read once from a fake.
func input(f *uitest.Fake) model.Input {
	return model.Input{Snapshot: f.Snapshot(), Journal: f.Journal(), Budgets: f.Budgets, Price: f.Price,
		Provisioning: f.Provisioning(), Skins: skin.Shipped(), Skin: "default", Now: f.Clock.Now(), Usage: f.Usage()}
}

func specs(kinds ...model.Kind) []model.Spec {
	out := make([]model.Spec, len(kinds))
	for i, k := range kinds {
		out[i] = model.Spec{Kind: k, Query: render.Query{Sort: render.Unsorted()}}
	}
	return out
}

func dashboardSpecs() []model.Spec {
	return specs(model.KindPending, model.KindNodePools, model.KindNodes, model.KindDecisions, model.KindInterruptions)
}

func allSpecs() []model.Spec {
	return specs(model.KindPending, model.KindNodePools, model.KindNodes, model.KindNodeClaims, model.KindPods,
		model.KindDecisions, model.KindInterruptions, model.KindEvents, model.KindSkins)
}

// specSet names a set of tables the console builds.
type specSet struct {
	name  string
	specs []model.Spec
}

// specSets are what the view-model benchmarks build: the tables the dashboard shows, or every
// table.
func specSets() []specSet {
	return []specSet{{"dashboard", dashboardSpecs()}, {"every-table", allSpecs()}}
}

// BenchmarkViewModels builds the view models of 10,000 pods and 2,000 nodes from one snapshot:
// the World and the tables the dashboard shows, or every table (all 10,000 pod rows).
func BenchmarkViewModels(b *testing.B) {
	f := uitest.New(uitest.Large())
	in := input(f)
	for _, bc := range specSets() {
		b.Run(bc.name, func(b *testing.B) {
			in := in
			in.Cache = model.NewCache()
			model.New(in) // as the console's builder does: a cache warm from the previous World
			b.ReportAllocs()
			for b.Loop() {
				w := model.New(in)
				for _, s := range bc.specs {
					w.Table(s)
				}
			}
		})
	}
}

// BenchmarkRequery re-filters and re-sorts 10,000 pods on an existing World: what a key press
// on "/" or Shift-letter costs the builder.
func BenchmarkRequery(b *testing.B) {
	f := uitest.New(uitest.Large())
	w := model.New(input(f))
	w.Rows(model.KindPods)
	flt, err := render.ParseFilter("web")
	if err != nil {
		b.Fatal(err)
	}
	cpu := render.ColumnBySort(render.PodColumns(), 'C')
	b.ReportAllocs()
	for b.Loop() {
		w.Table(model.Spec{Kind: model.KindPods, Query: render.Query{Filter: flt, Sort: render.Sort{Column: cpu, Desc: true}}})
	}
}

// BenchmarkClusterSnapshot is the backend's side, for comparison: state.Cluster.Snapshot of
// 10,000 pods and 2,000 nodes.
func BenchmarkClusterSnapshot(b *testing.B) {
	f := uitest.New(uitest.Large())
	b.ReportAllocs()
	for b.Loop() {
		f.Snapshot()
	}
}

// BenchmarkFrame draws one frame of 10,000 pods and 2,000 nodes on a 200x60 screen: the
// dashboard, and the pods view scrolled to the middle.
func BenchmarkFrame(b *testing.B) {
	f := uitest.New(uitest.Large())
	for _, bc := range []struct{ name, keys string }{
		{"dashboard", ""},
		{"nodes", ":nodes<Enter>"},
		{"pods", ":pods<Enter><PgDn><PgDn><PgDn>"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := newHarness(b, f, f, skin.Default(), 200, 60)
			h.keys(bc.keys)
			h.console.Draw(h.screen)
			b.ReportAllocs()
			for b.Loop() {
				h.console.Draw(h.screen)
			}
		})
	}
}

// BenchmarkKeyUnderChurn runs the console (its builder, worker and drawer) on a simulation
// screen over 10,000 pods and 2,000 nodes while a feeder changes 1,000 pods a second, and
// measures each key press from the moment it is injected until the screen shows its effect
// (the command prompt opening, then closing): the handler plus the draw that follows it.
func BenchmarkKeyUnderChurn(b *testing.B) {
	f := uitest.New(uitest.Large())
	screen, err := uitest.NewScreen(200, 60)
	if err != nil {
		b.Fatal(err)
	}
	c := ui.New(f, skin.Default(), ui.Options{Clock: f.Clock, Screen: screen})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := c.Run(ctx); err != nil {
			b.Error(err)
		}
	}()
	go func() { // the feeder: 10 pods every 10 ms
		defer wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				f.Churn(10)
			}
		}
	}()
	defer func() {
		cancel()
		wg.Wait()
	}()
	promptOpen := func() bool { return strings.HasPrefix(uitest.Line(screen, 2), " :") }
	waitFor := func(want bool) time.Duration {
		start := time.Now()
		for promptOpen() != want {
			if time.Since(start) > 10*time.Second {
				b.Fatalf("the screen did not follow the key within 10s")
			}
			time.Sleep(20 * time.Microsecond)
		}
		return time.Since(start)
	}
	waitFor(false)
	time.Sleep(300 * time.Millisecond) // let the first frames land
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		screen.InjectKey(tcell.KeyRune, ':', tcell.ModNone)
		waitFor(true)
		lat = append(lat, time.Since(start))
		start = time.Now()
		screen.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
		waitFor(false)
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
}

// BenchmarkWorldMemory reports the heap one World of 10,000 pods and 2,000 nodes holds, with the
// dashboard's tables or with every table built, and, for scale, the heap of the cluster state
// it reads (the backend's, not the console's). The console holds at most three Worlds: the
// builder's, the one in a frame on its way, and the one on screen.
func BenchmarkWorldMemory(b *testing.B) {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	f := uitest.New(uitest.Large())
	cluster := heap() - before
	in := input(f)
	for _, bc := range specSets() {
		b.Run(bc.name, func(b *testing.B) {
			var held *model.World
			for b.Loop() {
				before := heap()
				w := model.New(in)
				for _, s := range bc.specs {
					w.Table(s)
				}
				held = w
				b.ReportMetric(float64(heap()-before)/(1<<20), "MiB/world")
				runtime.KeepAlive(held)
			}
			b.ReportMetric(float64(cluster)/(1<<20), "MiB/cluster-state")
		})
	}
}
