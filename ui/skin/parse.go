package skin

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nodepilot/nodepilot/userfile"
)

// Parse reads a skin file laid over the default skin: every color the file does not set keeps
// the default's. name names the file in errors, which say the key path and what is allowed
// ("mytheme.yaml: k9s.views.tabel: unknown key (did you mean table?)").
func Parse(name string, data []byte) (*Skin, error) {
	s := Default()
	if err := decodeInto(s, name, data); err != nil {
		return nil, err
	}
	return s, nil
}

// Load reads the skin file at path (see Parse); errors name the file by path.
func Load(path string) (*Skin, error) {
	data, err := userfile.Read(path)
	if err != nil {
		return nil, readError(path, err)
	}
	return Parse(path, data)
}

// decodeInto lays the skin file data over s: its k9s: and nodepilot: sections set the fields they
// name, other top-level keys (anchors for aliases, say) are left alone. On error s is partly set.
func decodeInto(s *Skin, name string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return syntaxError(name, data, err)
	}
	if err := decodeDocument(s, &doc); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// decodeDocument decodes the top of a skin file.
func decodeDocument(s *Skin, doc *yaml.Node) error {
	if len(doc.Content) == 0 {
		return nil // an empty file, or only comments
	}
	top := resolve(doc.Content[0])
	if isNull(top) {
		return nil
	}
	if top.Kind != yaml.MappingNode {
		return fmt.Errorf("a skin is a mapping with k9s: and nodepilot: sections, got %s", describe(top))
	}
	ps, err := pairs("", top)
	if err != nil {
		return err
	}
	for _, p := range ps {
		var e entry
		switch p.key {
		case "k9s":
			e = k9sSection(s)
		case "nodepilot":
			e = nodepilotSection(s)
		default:
			continue
		}
		if err := e.decode(p.key, p.value); err != nil {
			return err
		}
	}
	n := s.Nodepilot
	if n.CheapBelow > n.DearAbove {
		return fmt.Errorf("nodepilot.cheapBelow: must not be above dearAbove (%g), got %g", n.DearAbove, n.CheapBelow)
	}
	return nil
}

// readError says why the skin file at path could not be read, naming the file once (not again
// in the "stat x.yaml: " of a file error), and what a skin may be instead.
func readError(path string, err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("skin file %s: %w (a skin is a k9s skin file's path or a shipped skin: %s)", path, err, strings.Join(Shipped(), ", "))
}
