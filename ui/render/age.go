package render

import (
	"strconv"
	"time"
)

// humanDuration is apimachinery's duration.HumanDuration (what kubectl's AGE column prints)
// without fmt, which made it the slowest cell of a 10,000-pod table.
func humanDuration(d time.Duration) string {
	b := make([]byte, 0, 8)
	unit := func(n int, u byte) { b = append(strconv.AppendInt(b, int64(n), 10), u) }
	seconds := int(d.Seconds())
	switch {
	case seconds < -1:
		return "<invalid>"
	case seconds < 0:
		return "0s"
	case seconds < 60*2:
		unit(seconds, 's')
		return string(b)
	}
	minutes := int(d / time.Minute)
	switch {
	case minutes < 10:
		unit(minutes, 'm')
		if s := int(d/time.Second) % 60; s != 0 {
			unit(s, 's')
		}
		return string(b)
	case minutes < 60*3:
		unit(minutes, 'm')
		return string(b)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		unit(hours, 'h')
		if m := minutes % 60; m != 0 {
			unit(m, 'm')
		}
	case hours < 48:
		unit(hours, 'h')
	case hours < 24*8:
		unit(hours/24, 'd')
		if h := hours % 24; h != 0 {
			unit(h, 'h')
		}
	case hours < 24*365*2:
		unit(hours/24, 'd')
	case hours < 24*365*8:
		unit(hours/24/365, 'y')
		if dy := (hours / 24) % 365; dy != 0 {
			unit(dy, 'd')
		}
	default:
		unit(hours/24/365, 'y')
	}
	return string(b)
}
