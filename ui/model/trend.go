package model

import "time"

// The trend's span and resolution: the dashboard's strip shows the last TrendWindow, one point
// per TrendStep.
const (
	TrendWindow = 30 * time.Minute
	TrendStep   = 10 * time.Second
)

// TrendPoint is the fleet at one step: its cost, pending pods and nodes.
type TrendPoint struct {
	// At is the start of the step; the point holds the step's latest figures.
	At      time.Time
	PerHour float64
	Pending int
	Nodes   int
}

// Trend is the fleet over the last TrendWindow, oldest point first. It is a value: Record
// returns a new one and never changes the points of the old.
type Trend struct {
	Points []TrendPoint
}

// Record returns the trend with the fleet's figures at now: the latest step's point replaced
// (its figures are the step's latest), or a new point for a new step, and the points older
// than TrendWindow dropped. A clock that went back starts the trend again.
func (t Trend) Record(now time.Time, f Fleet) Trend {
	at := now.Truncate(TrendStep)
	p := TrendPoint{At: at, PerHour: f.PerHour, Pending: f.Pending, Nodes: f.Nodes}
	keep := t.Points
	if n := len(keep); n > 0 {
		switch last := keep[n-1].At; {
		case at.Before(last):
			keep = nil
		case at.Equal(last):
			keep = keep[:n-1]
		}
	}
	first := 0
	for first < len(keep) && now.Sub(keep[first].At) > TrendWindow {
		first++
	}
	out := make([]TrendPoint, 0, len(keep)-first+1)
	out = append(out, keep[first:]...)
	return Trend{Points: append(out, p)}
}
