package prompt

// History remembers the commands typed, newest last, without repeats in a row.
type History struct {
	items []string
	max   int
}

// NewHistory keeps at most max commands.
func NewHistory(max int) *History { return &History{max: max} }

// Add records a command.
func (h *History) Add(s string) {
	if s == "" || (len(h.items) > 0 && h.items[len(h.items)-1] == s) {
		return
	}
	h.items = append(h.items, s)
	if len(h.items) > h.max {
		h.items = h.items[len(h.items)-h.max:]
	}
}

// At returns the i-th newest command (0 is the last typed), or "" past the oldest.
func (h *History) At(i int) (string, bool) {
	if i < 0 || i >= len(h.items) {
		return "", false
	}
	return h.items[len(h.items)-1-i], true
}
