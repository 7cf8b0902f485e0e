package render

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// Filter selects rows as k9s's "/" does: a regular expression matched against any cell (case
// insensitive), "!" before it to keep the rows that do not match, or "-l" and a label selector.
type Filter struct {
	text string
	re   *regexp.Regexp
	// literal is the lowercased text when it has no regular expression syntax: a substring
	// search is much faster than the case-insensitive regexp it equals.
	literal  string
	inverse  bool
	selector labels.Selector
}

// ParseFilter reads a filter as typed after "/". An empty text matches everything.
func ParseFilter(text string) (Filter, error) {
	f := Filter{text: text}
	s := strings.TrimSpace(text)
	switch {
	case s == "":
		return f, nil
	case strings.HasPrefix(s, "-l ") || s == "-l":
		sel, err := labels.Parse(strings.TrimSpace(strings.TrimPrefix(s, "-l")))
		if err != nil {
			return Filter{}, fmt.Errorf("label selector %q: %w", strings.TrimSpace(strings.TrimPrefix(s, "-l")), err)
		}
		f.selector = sel
		return f, nil
	case strings.HasPrefix(s, "!"):
		f.inverse = true
		s = s[1:]
	}
	re, err := regexp.Compile("(?i)" + s)
	if err != nil {
		return Filter{}, fmt.Errorf("filter %q: %w", s, err)
	}
	f.re = re
	if regexp.QuoteMeta(s) == s {
		f.literal = strings.ToLower(s)
	}
	return f, nil
}

// Text is the filter as typed.
func (f Filter) Text() string { return f.text }

// Empty reports whether the filter keeps every row.
func (f Filter) Empty() bool { return f.re == nil && f.selector == nil }

// Match reports whether the filter keeps the row.
func (f Filter) Match(r *Row) bool {
	switch {
	case f.selector != nil:
		return f.selector.Matches(labels.Set(r.Labels))
	case f.re == nil:
		return true
	}
	for _, c := range r.Cells {
		if f.matches(c) {
			return !f.inverse
		}
	}
	return f.inverse
}

func (f Filter) matches(cell string) bool {
	if f.literal != "" {
		return strings.Contains(strings.ToLower(cell), f.literal)
	}
	return f.re.MatchString(cell)
}
