package ui

import (
	"strings"

	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/render"
)

// content is a virtual tview.TableContent over an immutable render.Table: tview asks for the
// cells it draws, and only those are styled. Row 0 is the header. cols projects the table's
// columns (a dashboard pane shows a few).
type content struct {
	tview.TableContentReadOnly
	columns []render.Column
	table   *render.Table
	cols    []int
	pal     *palette
}

func newContent(columns []render.Column, cols []int, pal *palette) *content {
	if cols == nil {
		cols = make([]int, len(columns))
		for i := range cols {
			cols[i] = i
		}
	}
	return &content{columns: columns, cols: cols, pal: pal}
}

// GetRowCount implements tview.TableContent.
func (c *content) GetRowCount() int {
	if c.table == nil {
		return 1
	}
	return 1 + len(c.table.Rows)
}

// GetColumnCount implements tview.TableContent.
func (c *content) GetColumnCount() int { return len(c.cols) }

// GetCell implements tview.TableContent.
func (c *content) GetCell(row, column int) *tview.TableCell {
	if column < 0 || column >= len(c.cols) {
		return nil
	}
	i := c.cols[column]
	if i >= len(c.columns) {
		return nil
	}
	col := c.columns[i]
	align := tview.AlignLeft
	if col.Align == render.AlignRight {
		align = tview.AlignRight
	}
	if row == 0 {
		return c.header(i, col, align)
	}
	r := c.table.Row(row - 1)
	if r == nil || i >= len(r.Cells) {
		return nil
	}
	text := r.Cells[i]
	if strings.ContainsRune(text, '[') {
		text = tview.Escape(text)
	}
	st := c.pal.cell(r.CellTone(i), r.Num(i))
	if r.Level != render.LevelObject {
		st = st.Bold(true)
	}
	return &tview.TableCell{Text: text, Align: align, MaxWidth: col.MaxWidth, Style: st, NotSelectable: r.Level != render.LevelObject}
}

// header names a column, marks the sorted one, and pads to the widest cell of the whole
// table so that columns keep their width while scrolling.
func (c *content) header(i int, col render.Column, align int) *tview.TableCell {
	name := col.Name
	sorted := c.table != nil && c.table.Query.Sort.Column == i
	if sorted {
		if c.table.Query.Sort.Desc {
			name += "↓"
		} else {
			name += "↑"
		}
	}
	if c.table != nil && i < len(c.table.Widths) {
		if pad := c.table.Widths[i] - width(name); pad > 0 {
			if align == tview.AlignRight {
				name = strings.Repeat(" ", pad) + name
			} else {
				name += strings.Repeat(" ", pad)
			}
		}
	}
	return &tview.TableCell{Text: name, Align: align, Style: c.pal.header(sorted), NotSelectable: true}
}
