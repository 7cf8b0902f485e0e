package skin

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// hex is a #rrggbb color as a skin file writes it.
func hex(v int32) tcell.Color { return tcell.NewHexColor(v) }

// check is one field of a parsed skin and the value the file gives it.
type check struct {
	field string
	got   func(*Skin) any
	want  any
}

// TestK9sSkinsKeepTheirColors parses the six k9s skins, unchanged, and checks fields against the
// colors written in each file; fields a file does not set keep the default skin's.
func TestK9sSkinsKeepTheirColors(t *testing.T) {
	def := Default()
	tests := []struct {
		file   string
		checks []check
	}{
		{"stock.yaml", []check{
			{"body fg (dodgerblue)", func(s *Skin) any { return s.Body.Fg }, tcell.ColorDodgerBlue},
			{"body bg (black, as RGB)", func(s *Skin) any { return s.Body.Bg }, hex(0x000000)},
			{"border focus (aqua)", func(s *Skin) any { return s.Frame.Border.Focus }, hex(0x00ffff)},
			{"menu fgStyle dim", func(s *Skin) any { return s.Frame.Menu.Dim }, true},
			{"menu num key (fuchsia)", func(s *Skin) any { return s.Frame.Menu.NumKey }, hex(0xff00ff)},
			{"title counter (papayawhip)", func(s *Skin) any { return s.Frame.Title.Counter }, tcell.ColorPapayaWhip},
			{"status pending (darkorange)", func(s *Skin) any { return s.Frame.Status.Pending }, tcell.ColorDarkOrange},
			{"table fg (blue)", func(s *Skin) any { return s.Table.Fg }, hex(0x0000ff)},
			{"table mark (darkgoldenrod)", func(s *Skin) any { return s.Table.Mark }, tcell.ColorDarkGoldenrod},
			{"yaml value (papayawhip)", func(s *Skin) any { return s.YAML.Value }, tcell.ColorPapayaWhip},
			{"title bg, not set", func(s *Skin) any { return s.Frame.Title.Bg }, def.Frame.Title.Bg},
		}},
		{"dracula.yaml", []check{
			{"body fg", func(s *Skin) any { return s.Body.Fg }, hex(0xf8f8f2)},
			{"body bg", func(s *Skin) any { return s.Body.Bg }, hex(0x282a36)},
			{"logo", func(s *Skin) any { return s.Body.Logo }, hex(0xbd93f9)},
			{"info fg", func(s *Skin) any { return s.Info.Fg }, hex(0xff79c6)},
			{"dialog button focus fg", func(s *Skin) any { return s.Dialog.ButtonFocusFg }, hex(0xf1fa8c)},
			{"dialog label fg", func(s *Skin) any { return s.Dialog.LabelFg }, hex(0xffb86c)},
			{"border fg", func(s *Skin) any { return s.Frame.Border.Fg }, hex(0x44475a)},
			{"status error", func(s *Skin) any { return s.Frame.Status.Error }, hex(0xff5555)},
			{"status kill", func(s *Skin) any { return s.Frame.Status.Kill }, hex(0x6272a4)},
			{"header sorter", func(s *Skin) any { return s.Table.Header.Sorter }, hex(0x8be9fd)},
			{"yaml key", func(s *Skin) any { return s.YAML.Key }, hex(0xff79c6)},
			{"table cursor bg, not set", func(s *Skin) any { return s.Table.CursorBg }, def.Table.CursorBg},
			{"status pending, not set", func(s *Skin) any { return s.Frame.Status.Pending }, def.Frame.Status.Pending},
		}},
		{"nord.yaml", []check{
			{"body fg (upper-case hex)", func(s *Skin) any { return s.Body.Fg }, hex(0xdadee8)},
			{"body bg default", func(s *Skin) any { return s.Body.Bg }, tcell.ColorDefault},
			{"dialog bg default", func(s *Skin) any { return s.Dialog.Bg }, tcell.ColorDefault},
			{"prompt bg", func(s *Skin) any { return s.Prompt.Bg }, hex(0x30343f)},
			{"prompt suggest", func(s *Skin) any { return s.Prompt.Suggest }, hex(0xd08770)},
			{"border fg", func(s *Skin) any { return s.Frame.Border.Fg }, hex(0xd9dee8)},
			{"menu key", func(s *Skin) any { return s.Frame.Menu.Key }, hex(0x81a1c1)},
			{"table bg default", func(s *Skin) any { return s.Table.Bg }, tcell.ColorDefault},
			{"header bg default", func(s *Skin) any { return s.Table.Header.Bg }, tcell.ColorDefault},
			// nord sets no table cursor colors (only xray's, which nodepilot does not draw).
			{"table cursor fg, not set", func(s *Skin) any { return s.Table.CursorFg }, def.Table.CursorFg},
			{"table cursor bg, not set", func(s *Skin) any { return s.Table.CursorBg }, def.Table.CursorBg},
		}},
		{"solarized-light.yaml", []check{
			{"body fg", func(s *Skin) any { return s.Body.Fg }, hex(0x657b83)},
			{"body bg", func(s *Skin) any { return s.Body.Bg }, hex(0xfdf6e3)},
			{"dialog button focus fg (white)", func(s *Skin) any { return s.Dialog.ButtonFocusFg }, hex(0xffffff)},
			{"crumbs fg (white)", func(s *Skin) any { return s.Frame.Crumbs.Fg }, hex(0xffffff)},
			{"crumbs active", func(s *Skin) any { return s.Frame.Crumbs.Active }, hex(0xb58900)},
			{"border focus", func(s *Skin) any { return s.Frame.Border.Focus }, hex(0x657b83)},
			{"table cursor fg (white)", func(s *Skin) any { return s.Table.CursorFg }, hex(0xffffff)},
			{"table cursor bg", func(s *Skin) any { return s.Table.CursorBg }, hex(0xfdf6e3)},
			{"table mark (darkgoldenrod)", func(s *Skin) any { return s.Table.Mark }, tcell.ColorDarkGoldenrod},
			{"yaml colon", func(s *Skin) any { return s.YAML.Colon }, hex(0x268bd2)},
		}},
		{"modus-vivendi-deuteranopia.yaml", []check{
			{"body bg", func(s *Skin) any { return s.Body.Bg }, hex(0x000000)},
			{"info fg", func(s *Skin) any { return s.Info.Fg }, hex(0x989898)},
			{"help bg", func(s *Skin) any { return s.Help.Bg }, hex(0x1e1e1e)},
			{"help key", func(s *Skin) any { return s.Help.Key }, hex(0x00bcff)},
			{"help num key", func(s *Skin) any { return s.Help.NumKey }, hex(0xfeacd0)},
			{"dialog button fg", func(s *Skin) any { return s.Dialog.ButtonFg }, hex(0x000000)},
			{"crumbs active", func(s *Skin) any { return s.Frame.Crumbs.Active }, hex(0xffa00f)},
			{"status pending", func(s *Skin) any { return s.Frame.Status.Pending }, hex(0xffa00f)},
			{"status add", func(s *Skin) any { return s.Frame.Status.Add }, hex(0x2fafff)},
			{"table cursor fg", func(s *Skin) any { return s.Table.CursorFg }, hex(0x000000)},
			{"table cursor bg", func(s *Skin) any { return s.Table.CursorBg }, hex(0xefef00)},
			{"table mark", func(s *Skin) any { return s.Table.Mark }, hex(0xffa00f)},
			{"header fg", func(s *Skin) any { return s.Table.Header.Fg }, hex(0x989898)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, err := Load(filepath.Join("testdata", "k9s", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tt.checks {
				if got := c.got(s); got != c.want {
					t.Errorf("%s = %v, want %v", c.field, got, c.want)
				}
			}
			if !reflect.DeepEqual(s.Nodepilot, def.Nodepilot) {
				t.Errorf("a k9s skin has no nodepilot: section, yet Nodepilot = %+v, want the default's %+v", s.Nodepilot, def.Nodepilot)
			}
		})
	}
}

// TestK9sTransparentIsLaidOverTheDefault checks that the partial transparent.yaml changes exactly
// the fields it names and leaves every other one as the default skin has it.
func TestK9sTransparentIsLaidOverTheDefault(t *testing.T) {
	got, err := Load(filepath.Join("testdata", "k9s", "transparent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	d := tcell.ColorDefault
	want.Body.Bg = d
	want.Prompt.Bg = d
	want.Info.Section = d
	want.Dialog.Bg, want.Dialog.LabelFg, want.Dialog.FieldFg = d, d, d
	want.Frame.Crumbs.Bg = d
	want.Frame.Title.Bg, want.Frame.Title.Counter = d, d
	want.Frame.Menu.Fg = d
	want.Table.Bg = d
	want.Table.Header.Fg, want.Table.Header.Bg = d, d
	want.YAML.Colon, want.YAML.Value = d, d
	if !reflect.DeepEqual(got, want) {
		t.Errorf("transparent.yaml over the default:\n got %+v\nwant %+v", got, want)
	}
	if got.Body.Fg != Default().Body.Fg {
		t.Errorf("body fg = %v, want the default's %v", got.Body.Fg, Default().Body.Fg)
	}
}
