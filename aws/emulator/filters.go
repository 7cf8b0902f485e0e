package emulator

import (
	"sort"
	"strings"
)

// filter is one EC2 Filter: a resource matches when one of its values for Name matches one of
// Values. Values may hold the wildcards * and ? (escape them with a backslash), as in EC2.
type filter struct {
	name   string
	values []string
}

// fieldFunc returns a resource's values for a filter name; known is false for a name the
// resource does not support.
type fieldFunc func(name string) (values []string, known bool)

func parseFilters(q query) []filter {
	var out []filter
	for _, f := range q.structs("Filter") {
		out = append(out, filter{name: f.str("Name"), values: f.list("Value")})
	}
	return out
}

// checkFilters rejects filter names the resource kind does not know, given the fields of any
// resource of that kind.
func checkFilters(filters []filter, fields fieldFunc) *apiError {
	for _, f := range filters {
		if _, known := fields(f.name); !known {
			return errInvalidParameterValue("The filter '" + f.name + "' is invalid")
		}
	}
	return nil
}

// matches reports whether a resource passes every filter.
func matches(filters []filter, fields fieldFunc) bool {
	for _, f := range filters {
		have, _ := fields(f.name)
		if !anyMatch(f.values, have) {
			return false
		}
	}
	return true
}

func anyMatch(patterns, values []string) bool {
	for _, p := range patterns {
		for _, v := range values {
			if globMatch(p, v) {
				return true
			}
		}
	}
	return false
}

// tagField serves tag:KEY, tag-key and tag-value for any tagged resource.
func tagField(name string, tags map[string]string) ([]string, bool) {
	if key, ok := strings.CutPrefix(name, "tag:"); ok {
		if v, ok := tags[key]; ok {
			return []string{v}, true
		}
		return nil, true
	}
	switch name {
	case "tag-key":
		keys := make([]string, 0, len(tags))
		for k := range tags {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys, true
	case "tag-value":
		vals := make([]string, 0, len(tags))
		for _, v := range tags {
			vals = append(vals, v)
		}
		return vals, true
	}
	return nil, false
}

// globMatch matches s against a pattern where * is any run of characters, ? any one
// character, and a backslash makes the next character literal.
func globMatch(pattern, s string) bool {
	p := []rune(pattern)
	r := []rune(s)
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(r) {
		switch {
		case pi < len(p) && p[pi] == '*':
			starP, starS = pi, si
			pi++
		case pi < len(p) && p[pi] == '?':
			pi++
			si++
		case pi < len(p) && p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == r[si]:
			pi += 2
			si++
		case pi < len(p) && p[pi] != '\\' && p[pi] == r[si]:
			pi++
			si++
		case starP >= 0:
			starS++
			si = starS
			pi = starP + 1
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func one(s string) []string { return []string{s} }
