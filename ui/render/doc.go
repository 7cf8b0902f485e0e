// Package render turns the console's objects into table rows and text, with pure functions:
// each kind declares its columns with their attributes (alignment, the Shift-letter that sorts
// by it, whether it sorts by number) and a function from one object to one row. A Table is
// the immutable result of filtering, sorting and grouping rows; it knows nothing of tview or
// of skins: cells carry a Tone, a meaning that the console maps onto the skin's colors.
package render
