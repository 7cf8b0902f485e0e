package skin

// k9sSection is the k9s: section of a skin file, each key bound to the field of s it sets. It
// knows every key k9s defines; those for things nodepilot does not draw are ignored.
func k9sSection(s *Skin) section {
	return section{
		"body": section{
			"fgColor":        color{&s.Body.Fg},
			"bgColor":        color{&s.Body.Bg},
			"logoColor":      color{&s.Body.Logo},
			"logoColorMsg":   ignored{},
			"logoColorInfo":  ignored{},
			"logoColorWarn":  ignored{},
			"logoColorError": ignored{},
		},
		"prompt": section{
			"fgColor":      color{&s.Prompt.Fg},
			"bgColor":      color{&s.Prompt.Bg},
			"suggestColor": color{&s.Prompt.Suggest},
			"border":       ignored{},
		},
		"help": section{
			"fgColor":      color{&s.Help.Fg},
			"bgColor":      color{&s.Help.Bg},
			"keyColor":     color{&s.Help.Key},
			"numKeyColor":  color{&s.Help.NumKey},
			"sectionColor": color{&s.Help.Section},
		},
		"info": section{
			"fgColor":      color{&s.Info.Fg},
			"sectionColor": color{&s.Info.Section},
			"cpuColor":     ignored{},
			"memColor":     ignored{},
			"k9sRevColor":  ignored{},
		},
		"dialog": section{
			"fgColor":            color{&s.Dialog.Fg},
			"bgColor":            color{&s.Dialog.Bg},
			"buttonFgColor":      color{&s.Dialog.ButtonFg},
			"buttonBgColor":      color{&s.Dialog.ButtonBg},
			"buttonFocusFgColor": color{&s.Dialog.ButtonFocusFg},
			"buttonFocusBgColor": color{&s.Dialog.ButtonFocusBg},
			"labelFgColor":       color{&s.Dialog.LabelFg},
			"fieldFgColor":       color{&s.Dialog.FieldFg},
		},
		"frame": section{
			"border": section{
				"fgColor":    color{&s.Frame.Border.Fg},
				"focusColor": color{&s.Frame.Border.Focus},
			},
			"menu": section{
				"fgColor":     color{&s.Frame.Menu.Fg},
				"fgStyle":     textStyle{&s.Frame.Menu},
				"keyColor":    color{&s.Frame.Menu.Key},
				"numKeyColor": color{&s.Frame.Menu.NumKey},
			},
			"crumbs": section{
				"fgColor":     color{&s.Frame.Crumbs.Fg},
				"bgColor":     color{&s.Frame.Crumbs.Bg},
				"activeColor": color{&s.Frame.Crumbs.Active},
			},
			"status": section{
				"newColor":       color{&s.Frame.Status.New},
				"modifyColor":    color{&s.Frame.Status.Modify},
				"addColor":       color{&s.Frame.Status.Add},
				"errorColor":     color{&s.Frame.Status.Error},
				"pendingColor":   color{&s.Frame.Status.Pending},
				"highlightColor": color{&s.Frame.Status.Highlight},
				"killColor":      color{&s.Frame.Status.Kill},
				"completedColor": color{&s.Frame.Status.Completed},
			},
			"title": section{
				"fgColor":        color{&s.Frame.Title.Fg},
				"bgColor":        color{&s.Frame.Title.Bg},
				"highlightColor": color{&s.Frame.Title.Highlight},
				"counterColor":   color{&s.Frame.Title.Counter},
				"filterColor":    color{&s.Frame.Title.Filter},
			},
		},
		"views": section{
			"table": section{
				"fgColor":       color{&s.Table.Fg},
				"bgColor":       color{&s.Table.Bg},
				"cursorFgColor": color{&s.Table.CursorFg},
				"cursorBgColor": color{&s.Table.CursorBg},
				"markColor":     color{&s.Table.Mark},
				"header": section{
					"fgColor":     color{&s.Table.Header.Fg},
					"bgColor":     color{&s.Table.Header.Bg},
					"sorterColor": color{&s.Table.Header.Sorter},
				},
			},
			"yaml": section{
				"keyColor":   color{&s.YAML.Key},
				"colonColor": color{&s.YAML.Colon},
				"valueColor": color{&s.YAML.Value},
			},
			"charts": ignored{},
			"xray":   ignored{},
			"logs":   ignored{},
			"picker": ignored{},
			"help":   ignored{},
		},
		"emoji": ignored{},
	}
}

// nodepilotSection is the nodepilot: section of a skin file: what k9s skins do not cover.
func nodepilotSection(s *Skin) section {
	n := &s.Nodepilot
	return section{
		"spotColor":          color{&n.Spot},
		"onDemandColor":      color{&n.OnDemand},
		"zoneColors":         colors{&n.Zones},
		"emptinessColor":     color{&n.Emptiness},
		"driftColor":         color{&n.Drift},
		"consolidationColor": color{&n.Consolidation},
		"expirationColor":    color{&n.Expiration},
		"blockedColor":       color{&n.Blocked},
		"noticeColor":        color{&n.Notice},
		"warningColor":       color{&n.Warning},
		"criticalColor":      color{&n.Critical},
		"cheapColor":         color{&n.Cheap},
		"moderateColor":      color{&n.Moderate},
		"dearColor":          color{&n.Dear},
		"cheapBelow":         dollarsPerHour{&n.CheapBelow},
		"dearAbove":          dollarsPerHour{&n.DearAbove},
	}
}
