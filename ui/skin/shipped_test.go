package skin

import (
	"io/fs"
	"reflect"
	"slices"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/skins"
)

func TestShippedSkins(t *testing.T) {
	want := []string{"colorblind", "default", "light", "transparent"}
	if got := Shipped(); !slices.Equal(got, want) {
		t.Fatalf("Shipped() = %v, want %v", got, want)
	}
	for _, name := range Shipped() {
		if _, err := LoadShipped(name); err != nil {
			t.Errorf("LoadShipped(%q): %v", name, err)
		}
	}
	if got, _ := LoadShipped("default"); !reflect.DeepEqual(got, Default()) {
		t.Errorf("LoadShipped(default) differs from Default()")
	}
	_, err := LoadShipped("dracula")
	if want := `skin "dracula": no shipped skin has that name (shipped: colorblind, default, light, transparent)`; err == nil || err.Error() != want {
		t.Errorf("LoadShipped(dracula) = %v, want %s", err, want)
	}
}

// TestCompleteSkinsSetEveryKey parses the skins meant to stand alone over an empty skin rather than
// the default: a key they forgot would stay unset (the terminal's color) and show up here.
func TestCompleteSkinsSetEveryKey(t *testing.T) {
	for _, name := range []string{"default", "light", "colorblind"} {
		t.Run(name, func(t *testing.T) {
			data, err := fs.ReadFile(skins.FS(), name+".yaml")
			if err != nil {
				t.Fatal(err)
			}
			var s Skin
			if err := decodeInto(&s, name+".yaml", data); err != nil {
				t.Fatal(err)
			}
			for _, field := range unsetColors(reflect.ValueOf(s), "Skin") {
				t.Errorf("%s.yaml leaves %s unset", name, field)
			}
			n := s.Nodepilot
			if len(n.Zones) < 4 || n.CheapBelow <= 0 || n.DearAbove <= n.CheapBelow {
				t.Errorf("%s.yaml: zones %v, cheapBelow %g, dearAbove %g: want 4 zones or more and 0 < cheapBelow < dearAbove",
					name, n.Zones, n.CheapBelow, n.DearAbove)
			}
		})
	}
}

// unsetColors lists the color fields of v, a skin or a part of one, that are tcell.ColorDefault.
func unsetColors(v reflect.Value, path string) []string {
	if v.Type() == reflect.TypeOf(tcell.ColorDefault) {
		if v.Interface() == tcell.ColorDefault {
			return []string{path}
		}
		return nil
	}
	var out []string
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			out = append(out, unsetColors(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
	case reflect.Slice:
		for i := range v.Len() {
			out = append(out, unsetColors(v.Index(i), path)...)
		}
	}
	return out
}

func TestTransparentSkinUsesTheTerminalBackground(t *testing.T) {
	s, err := LoadShipped("transparent")
	if err != nil {
		t.Fatal(err)
	}
	d := tcell.ColorDefault
	for name, bg := range map[string]tcell.Color{
		"body": s.Body.Bg, "prompt": s.Prompt.Bg, "help": s.Help.Bg, "dialog": s.Dialog.Bg,
		"crumbs": s.Frame.Crumbs.Bg, "title": s.Frame.Title.Bg, "table": s.Table.Bg, "table header": s.Table.Header.Bg,
	} {
		if bg != d {
			t.Errorf("%s background = %v, want the terminal's (default)", name, bg)
		}
	}
	// Where you are must still show.
	for name, bg := range map[string]tcell.Color{
		"table cursor": s.Table.CursorBg, "dialog button": s.Dialog.ButtonBg, "focused dialog button": s.Dialog.ButtonFocusBg,
	} {
		if bg == d {
			t.Errorf("%s background is the terminal's: it would not show", name)
		}
	}
	if !reflect.DeepEqual(s.Nodepilot, Default().Nodepilot) {
		t.Errorf("transparent's nodepilot colors differ from the default's")
	}
}

// TestColorblindSkinUsesOkabeIto checks that every color carrying meaning in the nodepilot: section
// comes from the Okabe-Ito palette, and that the pairs that must be told apart differ.
func TestColorblindSkinUsesOkabeIto(t *testing.T) {
	s, err := LoadShipped("colorblind")
	if err != nil {
		t.Fatal(err)
	}
	okabeIto := []tcell.Color{
		hex(0xE69F00), hex(0x56B4E9), hex(0x009E73), hex(0xF0E442),
		hex(0x0072B2), hex(0xD55E00), hex(0xCC79A7),
	}
	n := s.Nodepilot
	meaning := append([]tcell.Color{
		n.Spot, n.OnDemand, n.Emptiness, n.Drift, n.Consolidation, n.Expiration, n.Blocked,
		n.Notice, n.Warning, n.Critical, n.Cheap, n.Moderate, n.Dear,
	}, n.Zones...)
	for _, c := range meaning {
		if !slices.Contains(okabeIto, c) {
			t.Errorf("%v is not an Okabe-Ito color", c)
		}
	}
	distinct := map[string][]tcell.Color{
		"capacity types": {n.Spot, n.OnDemand},
		"severities":     {n.Notice, n.Warning, n.Critical},
		"prices":         {n.Cheap, n.Moderate, n.Dear},
		"decisions":      {n.Emptiness, n.Drift, n.Consolidation, n.Expiration, n.Blocked},
		"zones":          n.Zones,
	}
	for what, cs := range distinct {
		sorted := slices.Clone(cs)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(cs) {
			t.Errorf("%s share a color: %v", what, cs)
		}
	}
}
