package skin

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/nodepilot/nodepilot/skins"
)

// Shipped returns the names of the skins built into nodepilot (default, transparent, light,
// colorblind...), sorted.
func Shipped() []string {
	files, err := fs.Glob(skins.FS(), "*.yaml")
	if err != nil {
		return nil // the pattern is valid, so this does not happen
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, strings.TrimSuffix(f, ".yaml"))
	}
	slices.Sort(names)
	return names
}

// LoadShipped returns the shipped skin called name (one of Shipped), laid over the default.
func LoadShipped(name string) (*Skin, error) {
	if !slices.Contains(Shipped(), name) {
		return nil, fmt.Errorf("skin %q: no shipped skin has that name (shipped: %s)", name, strings.Join(Shipped(), ", "))
	}
	file := name + ".yaml"
	data, err := fs.ReadFile(skins.FS(), file)
	if err != nil {
		return nil, fmt.Errorf("skin %q: %w", name, err)
	}
	return Parse(file, data)
}
