package ui

import (
	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/render"
	"github.com/nodepilot/nodepilot/ui/skin"
)

// palette maps what things mean onto a skin's colors. It is rebuilt on every skin swap and
// read on the UI goroutine only.
type palette struct {
	s *skin.Skin
}

func newPalette(s *skin.Skin) *palette { return &palette{s: s} }

// body is the screen's base style.
func (p *palette) body() tcell.Style { return draw.Style(p.s.Body.Fg, p.s.Body.Bg) }

// fg is the color of a tone; num is the cell's value, for ToneCost.
func (p *palette) fg(t render.Tone, num float64) tcell.Color {
	s := p.s
	st, np := s.Frame.Status, s.Nodepilot
	switch t {
	case render.ToneInherit, render.ToneNormal:
		return st.New
	case render.ToneAdded:
		return st.Add
	case render.ToneModified:
		return st.Modify
	case render.TonePending:
		return st.Pending
	case render.ToneError:
		return st.Error
	case render.ToneKill:
		return st.Kill
	case render.ToneCompleted:
		return st.Completed
	case render.ToneHighlight:
		return st.Highlight
	case render.ToneSpot:
		return np.Spot
	case render.ToneOnDemand:
		return np.OnDemand
	case render.ToneEmptiness:
		return np.Emptiness
	case render.ToneDrift:
		return np.Drift
	case render.ToneConsolidation:
		return np.Consolidation
	case render.ToneExpiration:
		return np.Expiration
	case render.ToneBlocked:
		return np.Blocked
	case render.ToneNotice:
		return np.Notice
	case render.ToneWarning:
		return np.Warning
	case render.ToneCritical:
		return np.Critical
	case render.ToneCost:
		return p.cost(num)
	case render.ToneKey:
		return s.YAML.Key
	case render.ToneColon:
		return s.YAML.Colon
	case render.ToneValue:
		return s.YAML.Value
	case render.ToneHeading:
		return s.Help.Section
	}
	if t >= render.ToneZone && len(np.Zones) > 0 {
		return np.Zones[int(t-render.ToneZone)%len(np.Zones)]
	}
	return st.New
}

// cost colors a price in $/h by the skin's thresholds.
func (p *palette) cost(perHour float64) tcell.Color {
	np := p.s.Nodepilot
	switch {
	case perHour < np.CheapBelow:
		return np.Cheap
	case perHour > np.DearAbove:
		return np.Dear
	}
	return np.Moderate
}

// cell is a table cell's style for a tone.
func (p *palette) cell(t render.Tone, num float64) tcell.Style {
	return draw.Style(p.fg(t, num), p.s.Table.Bg)
}

// header is a table header cell's style; sorted headers take the sorter color.
func (p *palette) header(sorted bool) tcell.Style {
	h := p.s.Table.Header
	if sorted {
		return draw.Style(h.Sorter, h.Bg).Bold(true)
	}
	return draw.Style(h.Fg, h.Bg).Bold(true)
}

// cursor is the selected row's style.
func (p *palette) cursor() tcell.Style { return draw.Style(p.s.Table.CursorFg, p.s.Table.CursorBg) }

// border is a pane's border style.
func (p *palette) border(focused bool) tcell.Style {
	if focused {
		return draw.Style(p.s.Frame.Border.Focus, p.s.Body.Bg)
	}
	return draw.Style(p.s.Frame.Border.Fg, p.s.Body.Bg)
}

// title styles the parts of a pane title.
func (p *palette) title(part titlePart) tcell.Style {
	t := p.s.Frame.Title
	switch part {
	case titleHighlight:
		return draw.Style(t.Highlight, t.Bg).Bold(true)
	case titleCounter:
		return draw.Style(t.Counter, t.Bg).Bold(true)
	case titleFilter:
		return draw.Style(t.Filter, t.Bg)
	}
	return draw.Style(t.Fg, t.Bg).Bold(true)
}

// titlePart is a part of a pane title.
type titlePart uint8

const (
	titleKind titlePart = iota
	titleHighlight
	titleCounter
	titleFilter
)

// text is a text view's style for a tone.
func (p *palette) text(t render.Tone) tcell.Style {
	if t == render.ToneInherit {
		return draw.Style(p.s.Body.Fg, p.s.Body.Bg)
	}
	return draw.Style(p.fg(t, 0), p.s.Body.Bg)
}
