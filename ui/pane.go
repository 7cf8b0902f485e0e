package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// pane is one bordered table over a spec. Its table is swapped whole when a new one is built;
// the cursor stays on the same object.
type pane struct {
	*tview.Box
	grid *grid
	spec model.Spec
	// label names the kind in the title ("Nodes"); scope says what it is narrowed to; note,
	// when set, ends the title (a narrow dashboard's "1/5").
	label, scope, note string
	// projected: it shows a few of the kind's columns (a dashboard pane), so not its table's note.
	projected bool
	focused   bool
	pal       *palette
}

func newPane(label, scope string, spec model.Spec, cols []int, pal *palette) *pane {
	return &pane{Box: tview.NewBox(), grid: newGrid(model.Columns(spec.Kind), cols), spec: spec, label: label, scope: scope, pal: pal,
		projected: cols != nil}
}

func (p *pane) setPalette(pal *palette) { p.pal = pal }

// setTable swaps in a new table, keeping the cursor on the object it was on.
func (p *pane) setTable(t *render.Table) { p.grid.setTable(t) }

// table is the table shown, or nil before the first.
func (p *pane) table() *render.Table { return p.grid.table }

// selected is the object row under the cursor, or nil.
func (p *pane) selected() *render.Row {
	if r := p.grid.row(); r != nil && r.Level == render.LevelObject {
		return r
	}
	return nil
}

// Draw implements tview.Primitive.
func (p *pane) Draw(screen tcell.Screen) {
	x, y, w, h := p.GetRect()
	ix, iy, iw, ih := draw.Box(screen, x, y, w, h, p.pal.border(p.focused), p.title())
	p.grid.draw(screen, ix, iy, iw, ih, p.pal)
}

// title is " Nodes(default)[12] " with the filter when there is one: " Pods(all)[3/40] </web> ".
func (p *pane) title() []draw.Span {
	counter := "0"
	if t := p.table(); t != nil {
		counter = t.Counter()
	}
	spans := []draw.Span{draw.Text(" "+p.label, p.pal.title(titleKind))}
	if p.scope != "" {
		spans = append(spans, draw.Text("(", p.pal.title(titleKind)), draw.Text(p.scope, p.pal.title(titleHighlight)), draw.Text(")", p.pal.title(titleKind)))
	}
	spans = append(spans, draw.Text("[", p.pal.title(titleKind)), draw.Text(counter, p.pal.title(titleCounter)), draw.Text("]", p.pal.title(titleKind)))
	if f := p.spec.Query.Filter.Text(); f != "" {
		spans = append(spans, draw.Text(" <", p.pal.title(titleKind)), draw.Text("/"+f, p.pal.title(titleFilter)), draw.Text(">", p.pal.title(titleKind)))
	}
	if p.note != "" {
		spans = append(spans, draw.Text(" "+p.note, p.pal.title(titleFilter)))
	}
	if t := p.table(); t != nil && t.Note != "" && !p.projected {
		spans = append(spans, draw.Text(" "+t.Note, p.pal.title(titleFilter)))
	}
	return append(spans, draw.Text(" ", p.pal.title(titleKind)))
}

// InputHandler implements tview.Primitive: cursor movement.
func (p *pane) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return func(ev *tcell.EventKey, _ func(tview.Primitive)) { p.grid.handle(ev) }
}

// plan is the data work of the pane's next table.
func (p *pane) plan() plan {
	spec := p.spec
	return func(w *model.World) func() {
		t := w.Table(spec)
		return func() { p.setTable(t) }
	}
}
