package ui

import (
	"fmt"
	"math"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/keymap"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// Narrow terminals show one dashboard pane at a time.
const (
	narrowWidth  = 100
	narrowHeight = 24
)

// dashboard is the default view: the five live panes (pending pods, NodePools, nodes by
// capacity type and zone, decisions, interruptions) on one screen, or one at a time on a
// narrow terminal. Tab moves the focus.
type dashboard struct {
	*tview.Box
	panes []*pane
	focus int
	pal   *palette
	// trend feeds the strip above the panes: the fleet's cost, pending pods and nodes.
	trend model.Trend
}

// Dashboard panes, in focus order.
const (
	dashPending = iota
	dashNodePools
	dashNodes
	dashDecisions
	dashInterruptions
)

func newDashboard(pal *palette) *dashboard {
	spec := func(k model.Kind) model.Spec {
		return model.Spec{Kind: k, Query: render.Query{Sort: render.Unsorted()}}
	}
	d := &dashboard{Box: tview.NewBox(), pal: pal, panes: []*pane{
		newPane("Pending", "why", spec(model.KindPending), []int{1, 4, 5}, pal),
		newPane("NodePools", "usage", spec(model.KindNodePools), []int{render.NodePoolColName, render.NodePoolColNodes, render.NodePoolColCPU,
			render.NodePoolColCPUBar, render.NodePoolColMemBar, render.NodePoolColPrice}, pal),
		newPane("Nodes", "capacity type, zone", spec(model.KindNodes), []int{render.NodeColName, render.NodeColType,
			render.NodeColCPUBar, render.NodeColMemBar, render.NodeColPrice, render.NodeColStatus}, pal),
		newPane("Decisions", "disruption", spec(model.KindDecisions), []int{0, 1, 2, 7, 8}, pal),
		newPane("Interruptions", "spot", spec(model.KindInterruptions), []int{0, 1, 2, 4}, pal),
	}}
	d.panes[0].focused = true
	return d
}

func (d *dashboard) crumb() string { return "dashboard" }
func (d *dashboard) active() *pane { return d.panes[d.focus] }

// point focuses the pane drawn at x, y and returns it. A narrow dashboard draws only the
// focused pane; the others keep no place on screen.
func (d *dashboard) point(x, y int) *pane {
	for i, p := range d.panes {
		if p.InRect(x, y) {
			d.panes[d.focus].focused = false
			d.focus = i
			p.focused = true
			return p
		}
	}
	return nil
}

func (d *dashboard) setPalette(pal *palette) {
	d.pal = pal
	for _, p := range d.panes {
		p.setPalette(pal)
	}
}

func (d *dashboard) plans() []plan {
	out := make([]plan, len(d.panes), len(d.panes)+1)
	for i, p := range d.panes {
		out[i] = p.plan()
	}
	return append(out, func(w *model.World) func() {
		t := w.Trend
		return func() { d.trend = t }
	})
}

// move shifts the focus by step panes.
func (d *dashboard) move(step int) {
	d.panes[d.focus].focused = false
	d.focus = (d.focus + step + len(d.panes)) % len(d.panes)
	d.panes[d.focus].focused = true
}

func (d *dashboard) keys(c *Console) keymap.Map {
	km := keymap.Map{
		{Key: keymap.Code(tcell.KeyTab), Name: "next pane", Help: "focus the next pane", Hint: true, Do: func() { d.move(1) }},
		{Key: keymap.Code(tcell.KeyBacktab), Name: "previous pane", Help: "focus the previous pane", Do: func() { d.move(-1) }},
	}
	return append(km, c.tableKeys(d.active())...)
}

// Draw implements tview.Primitive: five panes, or the focused one on a narrow terminal.
func (d *dashboard) Draw(screen tcell.Screen) {
	x, y, w, h := d.GetRect()
	if w < narrowWidth || h < narrowHeight {
		p := d.panes[d.focus]
		p.note = fmt.Sprintf("%d/%d Tab", d.focus+1, len(d.panes))
		for _, other := range d.panes {
			other.SetRect(0, 0, 0, 0)
		}
		p.SetRect(x, y, w, h)
		p.Draw(screen)
		return
	}
	d.drawStrip(screen, x, y, w)
	y, h = y+1, h-1
	left := w / 2
	poolRows := 3
	if t := d.panes[dashNodePools].table(); t != nil {
		poolRows = len(t.Rows)
	}
	poolH := max(5, min(poolRows+3, h/3))
	third := h / 3
	rects := [][4]int{
		dashPending:       {x + left, y, w - left, third},
		dashNodePools:     {x, y, left, poolH},
		dashNodes:         {x, y + poolH, left, h - poolH},
		dashDecisions:     {x + left, y + third, w - left, third},
		dashInterruptions: {x + left, y + 2*third, w - left, h - 2*third},
	}
	for i, p := range d.panes {
		r := rects[i]
		p.note = ""
		p.SetRect(r[0], r[1], r[2], r[3])
		p.Draw(screen)
	}
}

// InputHandler implements tview.Primitive: cursor movement in the focused pane.
func (d *dashboard) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return d.panes[d.focus].InputHandler()
}

// drawStrip draws the trend strip on one line: the fleet's $/h, pending pods and nodes as
// sparklines of the latest points that fit, each with its latest figure and the range the
// sparkline drew, and how long a span they cover.
func (d *dashboard) drawStrip(screen tcell.Screen, x, y, w int) {
	pts := d.trend.Points
	pendingTone := render.ToneCompleted
	if n := len(pts); n > 0 && pts[n-1].Pending > 0 {
		pendingTone = render.ToneWarning
	}
	costNow := 0.0
	if n := len(pts); n > 0 {
		costNow = pts[n-1].PerHour
	}
	gauges := []struct {
		label  string
		of     func(model.TrendPoint) float64
		style  tcell.Style
		figure func(now, lo, hi float64) string
	}{
		{"$/h", func(p model.TrendPoint) float64 { return p.PerHour }, draw.Style(d.pal.cost(costNow), d.pal.s.Body.Bg),
			func(now, lo, hi float64) string {
				return fmt.Sprintf("%s (%s-%s)", render.Dollars(now), render.Dollars(lo), render.Dollars(hi))
			}},
		{"pending", func(p model.TrendPoint) float64 { return float64(p.Pending) }, d.pal.text(pendingTone),
			func(now, _, hi float64) string { return fmt.Sprintf("%.0f (max %.0f)", now, hi) }},
		{"nodes", func(p model.TrendPoint) float64 { return float64(p.Nodes) }, d.pal.text(render.ToneHighlight),
			func(now, lo, hi float64) string { return fmt.Sprintf("%.0f (%.0f-%.0f)", now, lo, hi) }},
	}
	// The sparklines share what the labels leave, sized with the widest figures the points give.
	const labelled = " last 30m "
	fixed := len(labelled)
	values := make([][]float64, len(gauges))
	for i, g := range gauges {
		values[i] = make([]float64, len(pts))
		for j, p := range pts {
			values[i][j] = g.of(p)
		}
		_, lo, hi := render.Sparkline(values[i], len(pts))
		fixed += draw.Width(g.label) + draw.Width(g.figure(hi, lo, hi)) + 4
	}
	spark := max(0, min(int(model.TrendWindow/model.TrendStep), (w-fixed)/len(gauges)))
	body := d.pal.body()
	var spans []draw.Span
	for i, g := range gauges {
		line, lo, hi := render.Sparkline(values[i], spark)
		now := 0.0
		if n := len(values[i]); n > 0 {
			now = values[i][n-1]
		}
		spans = append(spans, draw.Text(" "+g.label+" ", body), draw.Text(line, g.style), draw.Text(" "+g.figure(now, lo, hi)+" ", g.style))
	}
	shown := time.Duration(min(len(pts), spark)) * model.TrendStep
	spans = append(spans, draw.Text(fmt.Sprintf(" last %.0fm ", math.Ceil(shown.Minutes())), d.pal.text(render.ToneCompleted)))
	draw.Line(screen, x, y, w, body, spans)
}
