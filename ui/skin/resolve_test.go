package skin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolveSelectionOrder(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	t.Setenv("HOME", home)
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	light := write("light.yaml", "skin: light\n")
	relative := write("relative.yaml", "skin: skins/mine.yaml\n")
	tilde := write("tilde.yaml", "skin: ~/skins/mine.yaml\n")
	noSkin := write("noskin.yaml", "# nothing set\n{}\n")
	unknownKey := write("unknownkey.yaml", "skin: light\nrefresh: 2s\n")
	typoKey := write("typokey.yaml", "skn: light\n")
	emptySkin := write("emptyskin.yaml", "skin:\n")
	empty := write("empty.yaml", "")
	missing := filepath.Join(dir, "missing.yaml")
	unknown := write("unknown.yaml", "skin: drakula\n")
	malformed := write("malformed.yaml", "skin: light\n  refresh: [\n")
	notMapping := write("list.yaml", "- skin\n")
	skinMapping := write("skinmap.yaml", "skin:\n  name: light\n")

	tests := []struct {
		name              string
		flag, env, config string
		want, wantErr     string
	}{
		{"nothing set", "", "", "", "default", ""},
		{"flag first", "colorblind", "light", light, "colorblind", ""},
		{"flag path", "./mine.yaml", "light", light, "./mine.yaml", ""},
		{"flag path without a slash", "mine.yaml", "", "", "mine.yaml", ""},
		{"then the environment", "", "transparent", light, "transparent", ""},
		{"then the config file", "", "", light, "light", ""},
		{"config path relative to the config file", "", "", relative, filepath.Join(dir, "skins", "mine.yaml"), ""},
		{"config path from home", "", "", tilde, filepath.Join(home, "skins", "mine.yaml"), ""},
		{"flag path from home", "~/mine.yaml", "", "", filepath.Join(home, "mine.yaml"), ""},
		{"config without skin:", "", "", noSkin, "default", ""},
		{"config with an empty skin:", "", "", emptySkin, "default", ""},
		{"empty config", "", "", empty, "default", ""},
		{"missing config is fine", "", "", missing, "default", ""},
		{"unknown shipped name in the flag", "drakula", "", "", "",
			`--skin "drakula": no shipped skin has that name (shipped: colorblind, default, light, transparent; a skin file needs a path, like ./drakula.yaml)`},
		{"unknown shipped name in the environment", "", "drakula", "", "",
			`NODEPILOT_SKIN "drakula": no shipped skin has that name (shipped: colorblind, default, light, transparent; a skin file needs a path, like ./drakula.yaml)`},
		{"unknown shipped name in the config", "", "", unknown, "",
			unknown + `: skin: "drakula": no shipped skin has that name (shipped: colorblind, default, light, transparent; a skin file needs a path, like ./drakula.yaml)`},
		{"unknown key in the config", "", "", unknownKey, "", unknownKey + ": refresh: unknown key (known keys: skin)"},
		{"mistyped key in the config", "", "", typoKey, "", typoKey + ": skn: unknown key (did you mean skin?)"},
		{"malformed config", "", "", malformed, "", malformed + ": line 2: mapping values are not allowed in this context"},
		{"config not a mapping", "", "", notMapping, "", notMapping + ": must be a mapping of settings (skin: and others), got a list"},
		{"config skin: a mapping", "", "", skinMapping, "", skinMapping + ": skin: must be a shipped skin's name or a skin file's path, got a mapping"},
		{"a malformed config does not matter when the flag decides", "light", "", malformed, "light", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.flag, tt.env, tt.config)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Resolve = %q, %v; want error\n%s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte("k9s:\n  body:\n    fgColor: red\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil || s.Body.Fg != hex(0xff0000) {
		t.Errorf("Open(%s) = %v, %v; want body fg red", path, s, err)
	}
	if s, err := Open("light"); err != nil || s.Body.Bg != hex(0xfafafa) {
		t.Errorf("Open(light) = %v, %v; want the light skin", s, err)
	}
	nope := filepath.Join(dir, "nope.yaml")
	if _, err := Open(nope); err == nil || err.Error() != "skin file "+nope+": no such file or directory (a skin is a k9s skin file's path or a shipped skin: colorblind, default, light, transparent)" {
		t.Errorf("Open(%s) = %v, want the error naming the file and what a skin may be", nope, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("k9s:\n  views:\n    tabel: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || err.Error() != bad+": k9s.views.tabel: unknown key (did you mean table?)" {
		t.Errorf("Open(bad) = %v, want the error naming the file by its path", err)
	}
}
