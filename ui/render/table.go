package render

import (
	"strconv"
	"unicode/utf8"
)

// Query is what the operator asked of a table: a filter and a sort.
type Query struct {
	Filter Filter
	Sort   Sort
}

// Grouper inserts group header rows into filtered, sorted object rows.
type Grouper func(rows []*Row) []*Row

// Table is an immutable, filtered, sorted and grouped table: what one pane draws.
type Table struct {
	Columns []Column
	Rows    []*Row
	// Widths are the widest cell of each column, header included (bounded by MaxWidth), so
	// that columns keep their width while scrolling.
	Widths []int
	// Total counts the object rows before filtering; Matched after.
	Total, Matched int
	Query          Query
	// Note, when set, says what the table lacks ("usage: metrics.k8s.io is not served...").
	Note  string
	index map[string]int
}

// Build filters, sorts and groups rows into a table. rows is not modified.
func Build(cols []Column, rows []*Row, q Query, group Grouper) *Table {
	t := &Table{Columns: cols, Query: q, Total: len(rows)}
	kept := make([]*Row, 0, len(rows))
	if q.Filter.Empty() {
		kept = append(kept, rows...)
	} else {
		for _, r := range rows {
			if q.Filter.Match(r) {
				kept = append(kept, r)
			}
		}
	}
	t.Matched = len(kept)
	sortRows(cols, kept, q.Sort)
	if group != nil {
		kept = group(kept)
	}
	t.Rows = kept
	t.index = make(map[string]int, len(kept))
	for i, r := range kept {
		if r.Key != "" {
			t.index[r.Key] = i
		}
	}
	t.Widths = widths(cols, kept)
	return t
}

// Find returns the index of the row with this key.
func (t *Table) Find(key string) (int, bool) {
	i, ok := t.index[key]
	return i, ok
}

// Row returns row i, or nil.
func (t *Table) Row(i int) *Row {
	if t == nil || i < 0 || i >= len(t.Rows) {
		return nil
	}
	return t.Rows[i]
}

// Counter is the title's counter: "12" or "3/12" when filtered.
func (t *Table) Counter() string {
	if t.Query.Filter.Empty() {
		return strconv.Itoa(t.Total)
	}
	return strconv.Itoa(t.Matched) + "/" + strconv.Itoa(t.Total)
}

func widths(cols []Column, rows []*Row) []int {
	w := make([]int, len(cols))
	for i, c := range cols {
		w[i] = utf8.RuneCountInString(c.Name) + 1 // room for the sort arrow
	}
	for _, r := range rows {
		for i, c := range r.Cells {
			if i < len(w) {
				if n := utf8.RuneCountInString(c); n > w[i] {
					w[i] = n
				}
			}
		}
	}
	for i, c := range cols {
		if c.MaxWidth > 0 && w[i] > c.MaxWidth {
			w[i] = c.MaxWidth
		}
	}
	return w
}
