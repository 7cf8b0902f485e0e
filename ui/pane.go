package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// pane is one bordered table over a spec: a tview.Table drawing a virtual content. Its table is
// swapped whole when a new one is built; the cursor stays on the same object.
type pane struct {
	*tview.Box
	table   *tview.Table
	content *content
	spec    model.Spec
	// label names the kind in the title ("Nodes"); scope says what it is narrowed to.
	label, scope string
	focused      bool
	pal          *palette
}

func newPane(label, scope string, spec model.Spec, cols []int, pal *palette) *pane {
	p := &pane{Box: tview.NewBox(), spec: spec, label: label, scope: scope, pal: pal}
	p.content = newContent(model.Columns(spec.Kind), cols, pal)
	p.table = tview.NewTable().SetContent(p.content).SetSelectable(true, false).SetFixed(1, 0)
	p.setPalette(pal)
	return p
}

func (p *pane) setPalette(pal *palette) {
	p.pal = pal
	p.content.pal = pal
	p.table.SetBackgroundColor(pal.s.Table.Bg)
	p.table.SetSelectedStyle(pal.cursor())
}

// setTable swaps in a new table, keeping the cursor on the object it was on.
func (p *pane) setTable(t *render.Table) {
	var key string
	if r := p.selectedRow(); r != nil {
		key = r.Key
	}
	row, _ := p.table.GetSelection()
	p.content.table = t
	if i, ok := t.Find(key); ok && key != "" {
		p.table.Select(i+1, 0)
		return
	}
	p.table.Select(firstObject(t, max(1, min(row, len(t.Rows)))-1)+1, 0)
}

// firstObject is the index of the first object row at or after i (group headers are not
// selectable), else i.
func firstObject(t *render.Table, i int) int {
	for j := max(i, 0); j < len(t.Rows); j++ {
		if t.Rows[j].Level == render.LevelObject {
			return j
		}
	}
	return i
}

// selectedRow is the row under the cursor, group headers included.
func (p *pane) selectedRow() *render.Row {
	row, _ := p.table.GetSelection()
	return p.content.table.Row(row - 1)
}

// selected is the object row under the cursor, or nil.
func (p *pane) selected() *render.Row {
	if r := p.selectedRow(); r != nil && r.Level == render.LevelObject {
		return r
	}
	return nil
}

// Draw implements tview.Primitive.
func (p *pane) Draw(screen tcell.Screen) {
	x, y, w, h := p.GetRect()
	fill(screen, x, y, w, h, style(p.pal.s.Table.Fg, p.pal.s.Table.Bg))
	ix, iy, iw, ih := box(screen, x, y, w, h, p.pal.border(p.focused), p.title())
	p.table.SetRect(ix, iy, iw, ih)
	p.table.Draw(screen)
}

// title is " Nodes(default)[12] " with the filter when there is one: " Pods(all)[3/40] </web> ".
func (p *pane) title() []span {
	counter := "0"
	if p.content.table != nil {
		counter = p.content.table.Counter()
	}
	spans := []span{{" " + p.label, p.pal.title(titleKind)}}
	if p.scope != "" {
		spans = append(spans, span{"(", p.pal.title(titleKind)}, span{p.scope, p.pal.title(titleHighlight)}, span{")", p.pal.title(titleKind)})
	}
	spans = append(spans, span{"[", p.pal.title(titleKind)}, span{counter, p.pal.title(titleCounter)}, span{"]", p.pal.title(titleKind)})
	if f := p.spec.Query.Filter.Text(); f != "" {
		spans = append(spans, span{" <", p.pal.title(titleKind)}, span{"/" + f, p.pal.title(titleFilter)}, span{">", p.pal.title(titleKind)})
	}
	return append(spans, span{" ", p.pal.title(titleKind)})
}

// InputHandler implements tview.Primitive: cursor movement.
func (p *pane) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return p.table.InputHandler()
}

// plan is the data work of the pane's next table.
func (p *pane) plan() plan {
	spec := p.spec
	return func(w *model.World) func() {
		t := w.Table(spec)
		return func() { p.setTable(t) }
	}
}
