package skin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nodepilot/nodepilot/suggest"
	"github.com/nodepilot/nodepilot/userfile"
)

// Resolve picks the skin to use: the --skin flag, else the NODEPILOT_SKIN environment variable,
// else the skin: key of the config file at configPath (~/.config/nodepilot/config.yaml), else
// "default". Pass "" for whatever is unset; a missing config file is fine, a malformed one is an
// error naming it.
//
// The result is a reference that Open and Watch take: a bare name (no slash, no extension) is a
// shipped skin, and must be one of Shipped; anything else is the path of a skin file. A leading
// ~/ stands for the home directory, and a relative path in the config file is relative to the
// config file's directory.
func Resolve(flag, env, configPath string) (string, error) {
	if flag != "" {
		return checkRef("--skin", flag, "")
	}
	if env != "" {
		return checkRef("NODEPILOT_SKIN", env, "")
	}
	if configPath != "" {
		ref, err := configSkin(configPath)
		if err != nil {
			return "", err
		}
		if ref != "" {
			return checkRef(configPath+": skin:", ref, filepath.Dir(configPath))
		}
	}
	return "default", nil
}

// Open loads the skin a reference from Resolve names: a shipped skin or a skin file.
func Open(ref string) (*Skin, error) {
	if isShippedName(ref) {
		return LoadShipped(ref)
	}
	return Load(ref)
}

// isShippedName tells a shipped skin's name (default) from a file's path (./default, x.yaml).
func isShippedName(ref string) bool {
	return !strings.ContainsAny(ref, `/\`) && filepath.Ext(ref) == ""
}

// checkRef checks a skin reference from source (the flag, the variable or the config file):
// a name must be shipped; a path gets ~/ expanded and, if relative, is taken from dir.
func checkRef(source, ref, dir string) (string, error) {
	if isShippedName(ref) {
		if !slices.Contains(Shipped(), ref) {
			return "", fmt.Errorf("%s %q: no shipped skin has that name (shipped: %s; a skin file needs a path, like ./%s.yaml)",
				source, ref, strings.Join(Shipped(), ", "), ref)
		}
		return ref, nil
	}
	if rest, ok := strings.CutPrefix(ref, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s %q: %w", source, ref, err)
		}
		return filepath.Join(home, rest), nil
	}
	if dir != "" && !filepath.IsAbs(ref) {
		return filepath.Join(dir, ref), nil
	}
	return ref, nil
}

// configKeys are the keys the config file may hold; any other is a typo or a setting of a newer
// nodepilot, and is an error rather than silently ignored.
var configKeys = []string{"skin"}

// configSkin reads the skin: key of the config file at path: "" if the file or the key is absent.
func configSkin(path string) (string, error) {
	data, err := userfile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return "", syntaxError(path, data, err)
	}
	if len(doc.Content) == 0 {
		return "", nil
	}
	top := resolve(doc.Content[0])
	if isNull(top) {
		return "", nil
	}
	if top.Kind != yaml.MappingNode {
		return "", fmt.Errorf("%s: must be a mapping of settings (skin: and others), got %s", path, describe(top))
	}
	ps, err := pairs("", top)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	ref := ""
	for _, p := range ps {
		if !slices.Contains(configKeys, p.key) {
			if near, ok := suggest.Nearest(p.key, configKeys); ok {
				return "", fmt.Errorf("%s: %s: unknown key (did you mean %s?)", path, p.key, near)
			}
			return "", fmt.Errorf("%s: %s: unknown key (known keys: %s)", path, p.key, strings.Join(configKeys, ", "))
		}
		v := resolve(p.value)
		if isNull(v) {
			continue
		}
		if v.Kind != yaml.ScalarNode {
			return "", fmt.Errorf("%s: skin: must be a shipped skin's name or a skin file's path, got %s", path, describe(v))
		}
		ref = v.Value
	}
	return ref, nil
}
