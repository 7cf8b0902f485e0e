package render

// ContextColumns are the columns of :ctx.
func ContextColumns() []Column {
	return []Column{{Name: "NAME", Sort: 'N'}, {Name: "CURRENT"}}
}

// ContextRow renders a kubeconfig context's name, marking the one the console is on, as k9s's
// context view does.
func ContextRow(name string, current bool) *Row {
	mark, tone := "", ToneNormal
	if current {
		mark, tone = "*", ToneHighlight
	}
	return &Row{Key: name, Cells: []string{name, mark}, Tone: tone, Ref: ContextName(name)}
}

// ContextName is the Ref of a :ctx row.
type ContextName string
