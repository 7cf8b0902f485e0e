package render

// SkinColumns are the columns of :skins.
func SkinColumns() []Column {
	return []Column{{Name: "NAME", Sort: 'N'}, {Name: "CURRENT"}}
}

// SkinRow renders a skin's name, marking the current one.
func SkinRow(name string, current bool) *Row {
	mark, tone := "", ToneNormal
	if current {
		mark, tone = "*", ToneHighlight
	}
	return &Row{Key: name, Cells: []string{name, mark}, Tone: tone, Ref: SkinName(name)}
}

// SkinName is the Ref of a :skins row.
type SkinName string
