package enginetest

import (
	"sync"

	"github.com/nodepilot/nodepilot/engine/journal"
)

// Measurements keeps the measurements the loops take: a journal sink that is a Meter, whose
// Measure also serves where a measuring function is asked for.
type Measurements struct {
	mu  sync.Mutex
	all []journal.Measurement
}

// Observe ignores entries: only measurements are kept.
func (m *Measurements) Observe(journal.Entry) {}

// Measure keeps a measurement.
func (m *Measurements) Measure(x journal.Measurement) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.all = append(m.all, x)
}

// Of returns the measurements of one measure, in the order they were taken.
func (m *Measurements) Of(measure journal.Measure) []journal.Measurement {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []journal.Measurement
	for _, x := range m.all {
		if x.Measure == measure {
			out = append(out, x)
		}
	}
	return out
}
