package render

import (
	"cmp"
	"slices"
	"strings"
)

// Sort orders a table by one column.
type Sort struct {
	// Column is the column index, or -1 for the kind's own order.
	Column int
	// Desc sorts largest first.
	Desc bool
}

// Unsorted keeps the kind's own order.
func Unsorted() Sort { return Sort{Column: -1} }

// Toggle is the sort after pressing the column's key: a new column starts in its preferred
// direction, the same column flips.
func (s Sort) Toggle(cols []Column, column int) Sort {
	if column == s.Column {
		return Sort{Column: column, Desc: !s.Desc}
	}
	return Sort{Column: column, Desc: column >= 0 && column < len(cols) && cols[column].DescFirst}
}

// sortRows orders rows in place, stably, so that equal rows keep the kind's order.
func sortRows(cols []Column, rows []*Row, s Sort) {
	if s.Column < 0 || s.Column >= len(cols) {
		return
	}
	i := s.Column
	compare := func(a, b *Row) int { return strings.Compare(a.Cells[i], b.Cells[i]) }
	if cols[i].Numeric {
		compare = func(a, b *Row) int { return cmp.Compare(a.Num(i), b.Num(i)) }
	}
	if s.Desc {
		asc := compare
		compare = func(a, b *Row) int { return asc(b, a) }
	}
	slices.SortStableFunc(rows, compare)
}
