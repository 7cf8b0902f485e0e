package skin

import "github.com/gdamore/tcell/v2"

// Skin is a resolved skin: every color the console draws with. k9s skin files set the k9s
// part (their keys map one to one onto these fields); the nodepilot: section of a skin file sets
// the rest. tcell.ColorDefault means the terminal's own color ("default" in a skin file).
type Skin struct {
	Body      Body
	Prompt    Prompt
	Help      Help
	Info      Info
	Dialog    Dialog
	Frame     Frame
	Table     Table
	YAML      YAML
	Nodepilot Nodepilot
}

// Body is the screen's base colors (k9s.body).
type Body struct {
	Fg, Bg, Logo tcell.Color
}

// Prompt is the command and filter prompt (k9s.prompt).
type Prompt struct {
	Fg, Bg, Suggest tcell.Color
}

// Help is the help screen listing the keys (k9s.help).
type Help struct {
	Fg, Bg, Key, NumKey, Section tcell.Color
}

// Info is the header's cluster information (k9s.info).
type Info struct {
	Fg, Section tcell.Color
}

// Dialog is confirmation dialogs (k9s.dialog).
type Dialog struct {
	Fg, Bg, ButtonFg, ButtonBg, ButtonFocusFg, ButtonFocusBg, LabelFg, FieldFg tcell.Color
}

// Frame is borders, the key hints menu, crumbs, status colors and titles (k9s.frame).
type Frame struct {
	Border BorderColors
	Menu   Menu
	Crumbs Crumbs
	Status Status
	Title  Title
}

// BorderColors are pane borders (k9s.frame.border).
type BorderColors struct {
	Fg, Focus tcell.Color
}

// Menu is the key hints (k9s.frame.menu); Dim is fgStyle: dim, Bold is fgStyle: bold.
type Menu struct {
	Fg, Key, NumKey tcell.Color
	Dim, Bold       bool
}

// Crumbs is the breadcrumb line (k9s.frame.crumbs).
type Crumbs struct {
	Fg, Bg, Active tcell.Color
}

// Status colors rows by state (k9s.frame.status).
type Status struct {
	New, Modify, Add, Error, Pending, Highlight, Kill, Completed tcell.Color
}

// Title is pane titles (k9s.frame.title).
type Title struct {
	Fg, Bg, Highlight, Counter, Filter tcell.Color
}

// Table is tables (k9s.views.table).
type Table struct {
	Fg, Bg, CursorFg, CursorBg, Mark tcell.Color
	Header                           TableHeader
}

// TableHeader is a table's header row (k9s.views.table.header).
type TableHeader struct {
	Fg, Bg, Sorter tcell.Color
}

// YAML is the YAML view (k9s.views.yaml).
type YAML struct {
	Key, Colon, Value tcell.Color
}

// Nodepilot is what k9s skins do not cover (the nodepilot: section of a skin file).
type Nodepilot struct {
	// Spot and OnDemand color capacity types.
	Spot, OnDemand tcell.Color
	// Zones color availability zones, in order; zones beyond the list reuse it.
	Zones []tcell.Color
	// Decisions color disruption decisions by method.
	Emptiness, Drift, Consolidation, Expiration, Blocked tcell.Color
	// Interruption severity: a notice (rebalance), a warning (scheduled change), critical
	// (spot interruption, instance stopping or terminating).
	Notice, Warning, Critical tcell.Color
	// Cost thresholds: nodes or pools under CheapBelow $/h are Cheap, over DearAbove Dear.
	Cheap, Moderate, Dear tcell.Color
	CheapBelow, DearAbove float64
}
