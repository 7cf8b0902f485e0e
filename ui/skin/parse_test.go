package skin

import (
	"reflect"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestParseColors(t *testing.T) {
	tests := []struct {
		text string
		want tcell.Color
		ok   bool
	}{
		{"dodgerblue", tcell.ColorDodgerBlue, true},
		{"DodgerBlue", tcell.ColorDodgerBlue, true},
		{"PAPAYAWHIP", tcell.ColorPapayaWhip, true},
		{"aqua", hex(0x00ffff), true}, // a palette color, resolved to RGB as k9s does
		{"black", hex(0x000000), true},
		{"grey", hex(0x808080), true},
		{"default", tcell.ColorDefault, true},
		{"Default", tcell.ColorDefault, true},
		{"#282a36", hex(0x282a36), true},
		{"#DADEE8", hex(0xdadee8), true},
		{"#000000", hex(0x000000), true},
		{"bluish", 0, false},
		{"linegreen", 0, false},
		{"", 0, false},
		{"#fff", 0, false},
		{"#ffffffff", 0, false},
		{"#gggggg", 0, false},
		{"#-fffff", 0, false},
		{"# fffff", 0, false},
		{" red", 0, false},
		{"-", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseColor(tt.text)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseColor(%q) = %v, %v; want %v, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
	if c, _ := parseColor("#000000"); c == tcell.ColorDefault {
		t.Errorf("#000000 must be black, not the terminal's color")
	}
}

// TestParseLaysTheFileOverTheDefault covers valid files: what they set, and that everything else
// keeps the default.
func TestParseLaysTheFileOverTheDefault(t *testing.T) {
	tests := []struct {
		name string
		skin string
		want func(s *Skin) // applies to Default() what the file should change
	}{
		{"empty file", "", func(*Skin) {}},
		{"only comments", "# nothing yet\n", func(*Skin) {}},
		{"empty sections", "k9s:\nnodepilot:\n", func(*Skin) {}},
		{"empty nested section", "k9s:\n  frame:\n    border:\n", func(*Skin) {}},
		{"top-level keys outside k9s: are free", "palette:\n  any: [thing, 1]\nname: mine\n", func(*Skin) {}},
		{"one color", "k9s:\n  body:\n    fgColor: red\n", func(s *Skin) { s.Body.Fg = hex(0xff0000) }},
		{"aliases", "fg: &fg \"#f8f8f2\"\nk9s:\n  body:\n    fgColor: *fg\n  prompt:\n    fgColor: *fg\n",
			func(s *Skin) { s.Body.Fg, s.Prompt.Fg = hex(0xf8f8f2), hex(0xf8f8f2) }},
		{"an aliased section", "dark: &dark\n  fgColor: white\n  bgColor: black\nk9s:\n  body: *dark\n  prompt: *dark\n",
			func(s *Skin) {
				s.Body.Fg, s.Body.Bg = hex(0xffffff), hex(0x000000)
				s.Prompt.Fg, s.Prompt.Bg = hex(0xffffff), hex(0x000000)
			}},
		{"merge keys: own keys win, then earlier merges", "a: &a {fgColor: red, bgColor: red, logoColor: red}\nb: &b {bgColor: blue, logoColor: blue}\n" +
			"k9s:\n  body:\n    <<: [*b, *a]\n    fgColor: white\n",
			func(s *Skin) { s.Body.Fg, s.Body.Bg, s.Body.Logo = hex(0xffffff), hex(0x0000ff), hex(0x0000ff) }},
		{"a mapping merging itself", "k9s:\n  body: &b\n    <<: *b\n    fgColor: red\n", func(s *Skin) { s.Body.Fg = hex(0xff0000) }},
		{"k9s keys nodepilot does not draw are ignored, whatever they hold",
			"k9s:\n  body:\n    logoColorWarn: not-a-color\n  prompt:\n    border: {command: aqua}\n  info:\n    cpuColor: 7\n  emoji:\n    palette: x\n" +
				"  views:\n    charts:\n      defaultDialColors: [linegreen]\n    xray: 42\n    logs: {indicator: {fgColor: x}}\n    picker: {}\n    help: [1]\n",
			func(*Skin) {}},
		{"help", "k9s:\n  help:\n    keyColor: gold\n", func(s *Skin) { s.Help.Key = tcell.ColorGold }},
		{"menu bold", "k9s:\n  frame:\n    menu:\n      fgStyle: bold\n", func(s *Skin) { s.Frame.Menu.Dim, s.Frame.Menu.Bold = false, true }},
		{"menu normal", "k9s:\n  frame:\n    menu:\n      fgStyle: normal\n", func(s *Skin) { s.Frame.Menu.Dim, s.Frame.Menu.Bold = false, false }},
		{"the whole nodepilot section", "nodepilot:\n" +
			"  spotColor: orange\n  onDemandColor: \"#0072b2\"\n  zoneColors: [red, default]\n" +
			"  emptinessColor: aqua\n  driftColor: gold\n  consolidationColor: lime\n  expirationColor: plum\n  blockedColor: maroon\n" +
			"  noticeColor: silver\n  warningColor: yellow\n  criticalColor: red\n" +
			"  cheapColor: green\n  moderateColor: olive\n  dearColor: purple\n  cheapBelow: 0\n  dearAbove: 2\n",
			func(s *Skin) {
				s.Nodepilot = Nodepilot{
					Spot: tcell.ColorOrange, OnDemand: hex(0x0072b2), Zones: []tcell.Color{hex(0xff0000), tcell.ColorDefault},
					Emptiness: hex(0x00ffff), Drift: tcell.ColorGold, Consolidation: hex(0x00ff00), Expiration: tcell.ColorPlum, Blocked: hex(0x800000),
					Notice: hex(0xc0c0c0), Warning: hex(0xffff00), Critical: hex(0xff0000),
					Cheap: hex(0x008000), Moderate: hex(0x808000), Dear: hex(0x800080), CheapBelow: 0, DearAbove: 2,
				}
			}},
		{"equal thresholds", "nodepilot:\n  cheapBelow: 0.5\n  dearAbove: 0.5\n", func(s *Skin) { s.Nodepilot.CheapBelow, s.Nodepilot.DearAbove = 0.5, 0.5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("mine.yaml", []byte(tt.skin))
			if err != nil {
				t.Fatal(err)
			}
			want := Default()
			tt.want(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestDefaultReturnsAFreshCopy(t *testing.T) {
	a := Default()
	a.Body.Fg = tcell.ColorRed
	a.Nodepilot.Zones[0] = tcell.ColorRed
	b := Default()
	if b.Body.Fg == tcell.ColorRed || b.Nodepilot.Zones[0] == tcell.ColorRed {
		t.Errorf("changing one Default() changed the next")
	}
}
