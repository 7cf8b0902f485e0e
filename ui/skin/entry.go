package skin

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
	"go.yaml.in/yaml/v3"

	"github.com/nodepilot/nodepilot/suggest"
)

// entry is what one key of a skin file sets. decode reads the key's value n into the skin;
// path is the key's path (k9s.body.fgColor), for error messages.
type entry interface {
	decode(path string, n *yaml.Node) error
}

// section is a mapping of a skin file: each key it knows and what that key sets. An unknown
// key is an error; an empty section sets nothing.
type section map[string]entry

func (s section) decode(path string, n *yaml.Node) error {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: must be a mapping of keys (%s), got %s", path, s.keys(), describe(n))
	}
	ps, err := pairs(path, n)
	if err != nil {
		return err
	}
	for _, p := range ps {
		e, ok := s[p.key]
		if !ok {
			return s.unknown(join(path, p.key), p.key)
		}
		if err := e.decode(join(path, p.key), p.value); err != nil {
			return err
		}
	}
	return nil
}

// unknown is the error for a key the section does not know: the nearest known key if one is
// close enough to be a typo, else every key it knows.
func (s section) unknown(path, key string) error {
	if near, ok := suggest.Nearest(key, s.names()); ok {
		return fmt.Errorf("%s: unknown key (did you mean %s?)", path, near)
	}
	return fmt.Errorf("%s: unknown key (known keys: %s)", path, s.keys())
}

// names is the section's keys, sorted.
func (s section) names() []string {
	names := make([]string, 0, len(s))
	for k := range s {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// keys is the section's keys as a list for a message.
func (s section) keys() string {
	return strings.Join(s.names(), ", ")
}

// ignored is a key k9s defines for something nodepilot does not draw (views.charts, say): its
// value, whatever it is, is accepted and dropped, as k9s would accept it.
type ignored struct{}

func (ignored) decode(string, *yaml.Node) error { return nil }

// color sets one color.
type color struct{ dst *tcell.Color }

func (e color) decode(path string, n *yaml.Node) error {
	c, err := decodeColor(path, n)
	if err != nil {
		return err
	}
	*e.dst = c
	return nil
}

// decodeColor reads a color value (see parseColor).
func decodeColor(path string, n *yaml.Node) (tcell.Color, error) {
	n = resolve(n)
	if isNull(n) {
		return tcell.ColorDefault, fmt.Errorf(`%s: no value (%s; quote "#rrggbb", since # starts a YAML comment)`, path, colorHelp)
	}
	if n.Kind != yaml.ScalarNode {
		return tcell.ColorDefault, fmt.Errorf("%s: must be a color (%s), got %s", path, colorHelp, describe(n))
	}
	c, ok := parseColor(n.Value)
	if !ok {
		return tcell.ColorDefault, fmt.Errorf("%s: %q is not a color (%s)", path, n.Value, colorHelp)
	}
	return c, nil
}

// colors sets a list of colors, at least one.
type colors struct{ dst *[]tcell.Color }

func (e colors) decode(path string, n *yaml.Node) error {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s: must be a list of colors, like [turquoise, plum, \"#c0ffee\"], got %s", path, describe(n))
	}
	if len(n.Content) == 0 {
		return fmt.Errorf("%s: must list at least one color", path)
	}
	out := make([]tcell.Color, 0, len(n.Content))
	for i, item := range n.Content {
		c, err := decodeColor(fmt.Sprintf("%s[%d]", path, i), item)
		if err != nil {
			return err
		}
		out = append(out, c)
	}
	*e.dst = out
	return nil
}

// dollarsPerHour sets a price threshold: a number of US dollars per hour, zero or more.
type dollarsPerHour struct{ dst *float64 }

func (e dollarsPerHour) decode(path string, n *yaml.Node) error {
	n = resolve(n)
	var v float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&v) != nil {
		return fmt.Errorf("%s: must be a number of dollars per hour, got %s", path, describe(n))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%s: must be a number of dollars per hour, zero or more, got %s", path, describe(n))
	}
	*e.dst = v
	return nil
}

// textStyle sets k9s.frame.menu.fgStyle: normal, bold or dim.
type textStyle struct{ menu *Menu }

func (e textStyle) decode(path string, n *yaml.Node) error {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "normal":
			e.menu.Dim, e.menu.Bold = false, false
			return nil
		case "bold":
			e.menu.Dim, e.menu.Bold = false, true
			return nil
		case "dim":
			e.menu.Dim, e.menu.Bold = true, false
			return nil
		}
	}
	return fmt.Errorf("%s: %s is not a text style (normal, bold or dim)", path, describe(n))
}
