package skin

import "testing"

// TestInvalidSkinsSayWhatIsWrong checks the exact message for each kind of mistake: the file, the
// key path, and what is allowed.
func TestInvalidSkinsSayWhatIsWrong(t *testing.T) {
	tests := []struct {
		name, skin, want string
	}{
		{"not a color", "k9s:\n  frame:\n    border:\n      fgColor: bluish\n",
			`mytheme.yaml: k9s.frame.border.fgColor: "bluish" is not a color (a name like dodgerblue, #rrggbb, or default)`},
		{"typo in a section name", "k9s:\n  views:\n    tabel:\n      fgColor: red\n",
			`mytheme.yaml: k9s.views.tabel: unknown key (did you mean table?)`},
		{"key in the wrong case", "k9s:\n  body:\n    FGColor: red\n",
			`mytheme.yaml: k9s.body.FGColor: unknown key (did you mean fgColor?)`},
		{"typo in the nodepilot section", "nodepilot:\n  spotColour: red\n",
			`mytheme.yaml: nodepilot.spotColour: unknown key (did you mean spotColor?)`},
		{"unknown key, nothing close", "k9s:\n  body:\n    wallpaper: red\n",
			`mytheme.yaml: k9s.body.wallpaper: unknown key (known keys: bgColor, fgColor, logoColor, logoColorError, logoColorInfo, logoColorMsg, logoColorWarn)`},
		{"threshold not a number", "nodepilot:\n  cheapBelow: cheap\n",
			`mytheme.yaml: nodepilot.cheapBelow: must be a number of dollars per hour, got "cheap"`},
		{"threshold quoted", "nodepilot:\n  dearAbove: \"2\"\n",
			`mytheme.yaml: nodepilot.dearAbove: must be a number of dollars per hour, got "2"`},
		{"threshold negative", "nodepilot:\n  cheapBelow: -0.5\n",
			`mytheme.yaml: nodepilot.cheapBelow: must be a number of dollars per hour, zero or more, got "-0.5"`},
		{"threshold infinite", "nodepilot:\n  dearAbove: .inf\n",
			`mytheme.yaml: nodepilot.dearAbove: must be a number of dollars per hour, zero or more, got ".inf"`},
		{"thresholds crossed", "nodepilot:\n  cheapBelow: 2\n  dearAbove: 1.5\n",
			`mytheme.yaml: nodepilot.cheapBelow: must not be above dearAbove (1.5), got 2`},
		{"thresholds crossed against the default", "nodepilot:\n  cheapBelow: 5\n",
			`mytheme.yaml: nodepilot.cheapBelow: must not be above dearAbove (1), got 5`},
		{"unquoted hex is a YAML comment", "k9s:\n  body:\n    fgColor: #ff0000\n",
			`mytheme.yaml: k9s.body.fgColor: no value (a name like dodgerblue, #rrggbb, or default; quote "#rrggbb", since # starts a YAML comment)`},
		{"short hex", "k9s:\n  body:\n    fgColor: \"#fff\"\n",
			`mytheme.yaml: k9s.body.fgColor: "#fff" is not a color (a name like dodgerblue, #rrggbb, or default)`},
		{"hex with a sign", "k9s:\n  body:\n    fgColor: \"#+fffff\"\n",
			`mytheme.yaml: k9s.body.fgColor: "#+fffff" is not a color (a name like dodgerblue, #rrggbb, or default)`},
		{"color given a mapping", "k9s:\n  body:\n    fgColor: {r: 1}\n",
			`mytheme.yaml: k9s.body.fgColor: must be a color (a name like dodgerblue, #rrggbb, or default), got a mapping`},
		{"section given a scalar", "k9s: blue\n",
			`mytheme.yaml: k9s: must be a mapping of keys (body, dialog, emoji, frame, help, info, prompt, views), got "blue"`},
		{"section given a list", "k9s:\n  frame:\n    - border\n",
			`mytheme.yaml: k9s.frame: must be a mapping of keys (border, crumbs, menu, status, title), got a list`},
		{"duplicate key", "k9s:\n  body:\n    fgColor: red\n    fgColor: blue\n",
			`mytheme.yaml: k9s.body.fgColor: duplicate key (first on line 3)`},
		{"bad menu style", "k9s:\n  frame:\n    menu:\n      fgStyle: blink\n",
			`mytheme.yaml: k9s.frame.menu.fgStyle: "blink" is not a text style (normal, bold or dim)`},
		{"bad zone color", "nodepilot:\n  zoneColors: [plum, mauve-ish]\n",
			`mytheme.yaml: nodepilot.zoneColors[1]: "mauve-ish" is not a color (a name like dodgerblue, #rrggbb, or default)`},
		{"zone colors not a list", "nodepilot:\n  zoneColors: plum\n",
			`mytheme.yaml: nodepilot.zoneColors: must be a list of colors, like [turquoise, plum, "#c0ffee"], got "plum"`},
		{"no zone colors", "nodepilot:\n  zoneColors: []\n",
			`mytheme.yaml: nodepilot.zoneColors: must list at least one color`},
		{"a list, not a skin", "- k9s\n",
			`mytheme.yaml: a skin is a mapping with k9s: and nodepilot: sections, got a list`},
		{"merge of a scalar", "k9s:\n  body:\n    <<: red\n",
			`mytheme.yaml: k9s.body: <<: merges mappings, got "red"`},
		{"a list as a key", "k9s:\n  ? [a]\n  : b\n",
			`mytheme.yaml: k9s: keys must be names, got a list`},
		{"YAML: bad indentation", "foreground: &fg \"#f8f8f2\"\nk9s:\n  body:\n    fgColor: *fg\n   bgColor: black\n",
			`mytheme.yaml: line 5: did not find expected key`},
		{"YAML: unclosed list", "k9s:\n  body:\n    fgColor: [red\n    bgColor: black\n",
			`mytheme.yaml: line 3: did not find expected ',' or ']'`},
		{"YAML: tab indentation", "k9s:\n  body:\n\tfgColor: red\n",
			`mytheme.yaml: line 3: found character that cannot start any token`},
		{"YAML: unknown alias", "k9s:\n  body:\n    fgColor: *foreground\n",
			`mytheme.yaml: line 3: unknown anchor 'foreground' referenced`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("mytheme.yaml", []byte(tt.skin))
			if err == nil {
				t.Fatalf("Parse = %+v, want error %s", s, tt.want)
			}
			if s != nil {
				t.Errorf("Parse returned a skin with its error")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}
