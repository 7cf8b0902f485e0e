package ui

// history remembers the commands typed, newest last, without repeats in a row.
type history struct {
	items []string
	max   int
}

func newHistory(max int) *history { return &history{max: max} }

// add records a command.
func (h *history) add(s string) {
	if s == "" || (len(h.items) > 0 && h.items[len(h.items)-1] == s) {
		return
	}
	h.items = append(h.items, s)
	if len(h.items) > h.max {
		h.items = h.items[len(h.items)-h.max:]
	}
}

// at returns the i-th newest command (0 is the last typed), or "" past the oldest.
func (h *history) at(i int) (string, bool) {
	if i < 0 || i >= len(h.items) {
		return "", false
	}
	return h.items[len(h.items)-1-i], true
}
