package render

// Level says whether a row is an object or a group header.
type Level uint8

// Row levels.
const (
	// LevelObject is a row for one object.
	LevelObject Level = iota
	// LevelGroup is a first-level group header with subtotals (a capacity type).
	LevelGroup
	// LevelSubgroup is a second-level group header with subtotals (a zone).
	LevelSubgroup
)

// Row is one formatted row. Rows are immutable once built and shared between tables.
type Row struct {
	// Key identifies the object across refreshes (namespace/name, a node's name, a journal
	// sequence number), so that the cursor stays on it.
	Key string
	// Cells are the formatted values, one per column.
	Cells []string
	// Nums are the numeric values of Numeric columns (and ToneCost cells), by column; nil when
	// the kind has none.
	Nums []float64
	// Tone colors the row; Tones, when set, colors single cells (ToneInherit takes Tone).
	Tone  Tone
	Tones []Tone
	// Labels are the object's labels, for label selector filters.
	Labels map[string]string
	// Level says whether the row is an object or a group header.
	Level Level
	// Ref is the object behind the row, for describe, YAML, explain and drill-down.
	Ref any
}

// CellTone is the tone of cell i.
func (r *Row) CellTone(i int) Tone {
	if i < len(r.Tones) && r.Tones[i] != ToneInherit {
		return r.Tones[i]
	}
	return r.Tone
}

// Num is the numeric value of cell i, or 0.
func (r *Row) Num(i int) float64 {
	if i < len(r.Nums) {
		return r.Nums[i]
	}
	return 0
}
