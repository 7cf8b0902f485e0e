package ui

import (
	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/render"
)

// grid draws a render.Table: the header, then the rows from an offset, the selected one in the
// cursor style. It is virtual: only the rows on screen are touched, and each screen cell is
// written once. Column widths come with the table (computed off the UI goroutine over every
// row), so columns hold still while scrolling. tview.Table measured four times slower here: it
// segments and measures every visible cell's text again on every frame and paints each
// background cell twice.
type grid struct {
	columns []render.Column
	// cols projects the table's columns (a dashboard pane shows a few).
	cols  []int
	table *render.Table
	// selected is the index of the selected row, offset the first row shown, colOffset the first
	// projected column shown.
	selected, offset, colOffset int
	// page is the number of rows the last draw showed; top is the screen line its header was
	// drawn on, for the mouse.
	page, top int
}

func newGrid(columns []render.Column, cols []int) *grid {
	if cols == nil {
		cols = make([]int, len(columns))
		for i := range cols {
			cols[i] = i
		}
	}
	return &grid{columns: columns, cols: cols, page: 1}
}

// setTable swaps in a table, keeping the selection on the same object (by key), else on the
// same position.
func (g *grid) setTable(t *render.Table) {
	key := ""
	if r := g.table.Row(g.selected); r != nil {
		key = r.Key
	}
	g.table = t
	if i, ok := t.Find(key); ok && key != "" {
		g.selected = i
		return
	}
	g.selected = max(0, min(g.selected, len(t.Rows)-1))
	g.move(0)
}

// row is the selected row, group headers included.
func (g *grid) row() *render.Row { return g.table.Row(g.selected) }

// rows is the number of rows of the table.
func (g *grid) rows() int {
	if g.table == nil {
		return 0
	}
	return len(g.table.Rows)
}

// move moves the selection by step rows, then on to the nearest object row in that direction
// (group headers are not selectable).
func (g *grid) move(step int) {
	n := g.rows()
	if n == 0 {
		g.selected = 0
		return
	}
	dir := 1
	if step < 0 {
		dir = -1
	}
	i := max(0, min(n-1, g.selected+step))
	for j := i; j >= 0 && j < n; j += dir {
		if g.table.Rows[j].Level == render.LevelObject {
			g.selected = j
			return
		}
	}
	for j := i; j >= 0 && j < n; j -= dir {
		if g.table.Rows[j].Level == render.LevelObject {
			g.selected = j
			return
		}
	}
	g.selected = i
}

// rowAt is the index of the row the last draw put on screen line y, if any.
func (g *grid) rowAt(y int) (int, bool) {
	line := y - g.top
	if line < 1 || line > g.page {
		return 0, false
	}
	i := g.offset + line - 1
	return i, i < g.rows()
}

// handle moves the selection or scrolls columns; it reports whether the key was one of its own.
func (g *grid) handle(ev *tcell.EventKey) bool {
	switch ev.Key() {
	case tcell.KeyUp:
		g.move(-1)
	case tcell.KeyDown:
		g.move(1)
	case tcell.KeyPgUp, tcell.KeyCtrlB:
		g.move(-g.page)
	case tcell.KeyPgDn, tcell.KeyCtrlF:
		g.move(g.page)
	case tcell.KeyHome:
		g.selected = 0
		g.move(0)
	case tcell.KeyEnd:
		g.selected = g.rows() - 1
		g.move(0)
	case tcell.KeyLeft:
		g.colOffset = max(0, g.colOffset-1)
	case tcell.KeyRight:
		g.colOffset = min(len(g.cols)-1, g.colOffset+1)
	case tcell.KeyRune:
		switch ev.Rune() {
		case 'k':
			g.move(-1)
		case 'j':
			g.move(1)
		case 'g':
			g.selected = 0
			g.move(0)
		case 'G':
			g.selected = g.rows() - 1
			g.move(-1)
		case 'h':
			g.colOffset = max(0, g.colOffset-1)
		case 'l':
			g.colOffset = min(len(g.cols)-1, g.colOffset+1)
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// visible are the projected columns that fit in w cells, with their widths (the last one cut).
func (g *grid) visible(w int) (cols, widths []int) {
	used := 0
	for _, c := range g.cols[min(g.colOffset, len(g.cols)):] {
		cw := draw.Width(g.columns[c].Name) + 1
		if g.table != nil && c < len(g.table.Widths) {
			cw = g.table.Widths[c]
		}
		if used > 0 {
			used++ // the space between columns
		}
		if used+cw > w {
			if rest := w - used; rest >= 3 {
				cols, widths = append(cols, c), append(widths, rest)
			}
			break
		}
		cols, widths = append(cols, c), append(widths, cw)
		used += cw
	}
	return cols, widths
}

// draw draws the grid in a rectangle, writing every cell of it once.
func (g *grid) draw(screen tcell.Screen, x, y, w, h int, pal *palette) {
	if w <= 0 || h <= 0 {
		return
	}
	bg := draw.Style(pal.s.Table.Fg, pal.s.Table.Bg)
	cols, widths := g.visible(w)
	g.page, g.top = max(1, h-1), y
	g.scroll()
	// Header.
	cx := x
	for i, c := range cols {
		if i > 0 {
			cx += putCell(screen, cx, y, 1, "", render.AlignLeft, bg)
		}
		name, sorted := g.header(c)
		cx += putCell(screen, cx, y, widths[i], name, g.columns[c].Align, pal.header(sorted))
	}
	putCell(screen, cx, y, x+w-cx, "", render.AlignLeft, bg)
	// Rows.
	for line := 1; line < h; line++ {
		i := g.offset + line - 1
		r := g.table.Row(i)
		if r == nil {
			putCell(screen, x, y+line, w, "", render.AlignLeft, bg)
			continue
		}
		cursor := i == g.selected && r.Level == render.LevelObject
		sep := bg
		if cursor {
			sep = pal.cursor()
		}
		cx := x
		for k, c := range cols {
			if k > 0 {
				cx += putCell(screen, cx, y+line, 1, "", render.AlignLeft, sep)
			}
			st := pal.cell(r.CellTone(c), r.Num(c))
			if r.Level != render.LevelObject {
				st = st.Bold(true)
			}
			if cursor {
				st = pal.cursor()
			}
			text := ""
			if c < len(r.Cells) {
				text = r.Cells[c]
			}
			cx += putCell(screen, cx, y+line, widths[k], text, g.columns[c].Align, st)
		}
		putCell(screen, cx, y+line, x+w-cx, "", render.AlignLeft, sep)
	}
}

// scroll keeps the selection on screen.
func (g *grid) scroll() {
	switch {
	case g.selected < g.offset:
		g.offset = g.selected
	case g.selected >= g.offset+g.page:
		g.offset = g.selected - g.page + 1
	}
	g.offset = max(0, min(g.offset, g.rows()-g.page))
}

// header is a column's name with the sort arrow when the table is sorted by it.
func (g *grid) header(c int) (string, bool) {
	name := g.columns[c].Name
	if g.table == nil || g.table.Query.Sort.Column != c {
		return name, false
	}
	if g.table.Query.Sort.Desc {
		return name + "↓", true
	}
	return name + "↑", true
}

// putCell writes text into exactly w cells (aligned, padded with spaces, cut with an ellipsis
// when too long) and returns w.
func putCell(screen tcell.Screen, x, y, w int, text string, align render.Align, st tcell.Style) int {
	if w <= 0 {
		return 0
	}
	tw := draw.Width(text)
	if tw > w {
		text, tw = render.Truncate(text, w), w
	}
	pad := w - tw
	if align == render.AlignRight {
		draw.Blank(screen, x, y, pad, st)
		draw.Put(screen, x+pad, y, tw, text, st)
		return w
	}
	draw.Put(screen, x, y, tw, text, st)
	draw.Blank(screen, x+tw, y, pad, st)
	return w
}
