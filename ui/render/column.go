package render

// Align is a column's alignment.
type Align uint8

// Alignments.
const (
	AlignLeft Align = iota
	AlignRight
)

// Column declares one column of a kind's table.
type Column struct {
	// Name is the header.
	Name string
	// Align is how cells line up; numbers align right.
	Align Align
	// Sort is the letter that sorts by this column with Shift (N sorts by NAME), or 0.
	Sort rune
	// Numeric columns sort by the row's Nums rather than by text.
	Numeric bool
	// DescFirst sorts descending on the first press (cost, utilisation: largest first).
	DescFirst bool
	// MaxWidth truncates wider cells (0: no limit).
	MaxWidth int
}

// ColumnBySort returns the index of the column sorted by the letter r, or -1.
func ColumnBySort(cols []Column, r rune) int {
	for i, c := range cols {
		if c.Sort != 0 && c.Sort == r {
			return i
		}
	}
	return -1
}
