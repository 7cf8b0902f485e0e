package render

import "strings"

// sparks are the eight heights of a sparkline's column, lowest first.
var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values, oldest first, as width columns of block characters: the latest
// width values, right-aligned (blanks before a short series), each scaled between the least and
// greatest of those drawn, which it returns. A flat series is drawn on the lowest height when it
// is zero, else half way, so that "nothing" and "steady" look different.
func Sparkline(values []float64, width int) (line string, lo, hi float64) {
	if width <= 0 {
		return "", 0, 0
	}
	if len(values) > width {
		values = values[len(values)-width:]
	}
	for i, v := range values {
		if i == 0 || v < lo {
			lo = v
		}
		if i == 0 || v > hi {
			hi = v
		}
	}
	var b strings.Builder
	b.Grow(width * 3)
	b.WriteString(strings.Repeat(" ", width-len(values)))
	for _, v := range values {
		level := 0
		switch {
		case hi > lo:
			level = int((v - lo) / (hi - lo) * float64(len(sparks)-1))
		case hi > 0:
			level = len(sparks)/2 - 1
		}
		b.WriteRune(sparks[level])
	}
	return b.String(), lo, hi
}
