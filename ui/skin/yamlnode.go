package skin

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// pair is one key of a YAML mapping and its value.
type pair struct {
	key   string
	value *yaml.Node
}

// resolve follows an alias (*name) to the node its anchor (&name) marks.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is an empty value (nothing, ~ or null).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names a value for an error message: a scalar quoted, else its kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	default:
		return "nothing"
	}
}

// join extends a key path: join("k9s", "body") is k9s.body.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// pairs lists the keys of mapping n in document order, with YAML merge keys (<<: *base) laid
// under them as YAML 1.1 defines: a key written in n wins over a merged one. A key written twice
// is an error naming path.
func pairs(path string, n *yaml.Node) ([]pair, error) {
	var own, merged []pair
	line := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s: keys must be names, got %s", orTop(path), describe(k))
		}
		if k.ShortTag() == "!!merge" {
			m, err := mergedPairs(path, v, map[*yaml.Node]bool{n: true})
			if err != nil {
				return nil, err
			}
			merged = append(merged, m...)
			continue
		}
		if first, dup := line[k.Value]; dup {
			return nil, fmt.Errorf("%s: duplicate key (first on line %d)", join(path, k.Value), first)
		}
		line[k.Value] = k.Line
		own = append(own, pair{k.Value, v})
	}
	for _, p := range merged {
		if _, written := line[p.key]; !written {
			line[p.key] = 0
			own = append(own, p)
		}
	}
	return own, nil
}

// mergedPairs is the keys a merge key's value brings: one mapping, or a list of them. Callers
// keep the first of a key, so earlier mappings win, and a mapping's own keys win over those it
// merges in turn. seen guards against a mapping that merges itself.
func mergedPairs(path string, v *yaml.Node, seen map[*yaml.Node]bool) ([]pair, error) {
	v = resolve(v)
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = sources[:0]
		for _, s := range v.Content {
			sources = append(sources, resolve(s))
		}
	}
	var out []pair
	for _, s := range sources {
		if s.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: <<: merges mappings, got %s", orTop(path), describe(s))
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		var nested []*yaml.Node
		for i := 0; i+1 < len(s.Content); i += 2 {
			k, val := resolve(s.Content[i]), s.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s: keys must be names, got %s", orTop(path), describe(k))
			}
			if k.ShortTag() == "!!merge" {
				nested = append(nested, val)
				continue
			}
			out = append(out, pair{k.Value, val})
		}
		for _, val := range nested {
			m, err := mergedPairs(path, val, seen)
			if err != nil {
				return nil, err
			}
			out = append(out, m...)
		}
	}
	return out, nil
}

// orTop names the top of the document in errors, where the key path is empty.
func orTop(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}
