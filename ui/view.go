package ui

import (
	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/keymap"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// view is one screen of the main area: the dashboard, a table, or a text.
type view interface {
	tview.Primitive
	// crumb names the view in the crumbs line.
	crumb() string
	// keys are the view's own actions; the console adds its global ones.
	keys(c *Console) keymap.Map
	// plans are the data work of the view's next frame.
	plans() []plan
	// active is the pane that filters, sorts and selects, or nil (a text view).
	active() *pane
	// point is the pane the last draw put at x, y, which becomes the active one, or nil.
	point(x, y int) *pane
	setPalette(*palette)
}

// labels are the titles of the kinds.
func label(k model.Kind) string {
	switch k {
	case model.KindPending:
		return "Pending"
	case model.KindNodePools:
		return "NodePools"
	case model.KindNodes:
		return "Nodes"
	case model.KindNodeClaims:
		return "NodeClaims"
	case model.KindPods:
		return "Pods"
	case model.KindDecisions:
		return "Decisions"
	case model.KindInterruptions:
		return "Interruptions"
	case model.KindEvents:
		return "Events"
	case model.KindSkins:
		return "Skins"
	case model.KindContexts:
		return "Contexts"
	case model.KindTouched:
		return "Touched"
	case model.KindRightSizing:
		return "RightSizing"
	}
	return string(k)
}

// tableView is a full-screen table of one kind.
type tableView struct {
	*pane
	name string
}

func newTableView(spec model.Spec, scope, crumb string, pal *palette) *tableView {
	if scope == "" {
		scope = "all"
	}
	p := newPane(label(spec.Kind), scope, spec, nil, pal)
	p.focused = true
	return &tableView{pane: p, name: crumb}
}

func (v *tableView) crumb() string              { return v.name }
func (v *tableView) keys(c *Console) keymap.Map { return c.tableKeys(v.pane) }
func (v *tableView) plans() []plan              { return []plan{v.pane.plan()} }
func (v *tableView) active() *pane              { return v.pane }

func (v *tableView) point(x, y int) *pane {
	if v.pane.InRect(x, y) {
		return v.pane
	}
	return nil
}

// selectedOf is the object row under a view's cursor, or nil.
func selectedOf(v view) *render.Row {
	if p := v.active(); p != nil {
		return p.selected()
	}
	return nil
}
