package render

import "strings"

// BarWidth is the cells a usage bar takes.
const BarWidth = 6

// Bar draws, eks-node-viewer style, how much of a whole is requested and, when known, used:
// width cells, each a 1/width share, solid where used, shaded where requested beyond use, light
// where free. Without a use figure the requested share is solid. Shares above 1 fill the bar.
func Bar(requested, used float64, hasUse bool, width int) string {
	var b strings.Builder
	b.Grow(width * 3)
	for i := range width {
		mid := (float64(i) + 0.5) / float64(width)
		switch {
		case hasUse && mid <= used, !hasUse && mid <= requested:
			b.WriteRune('█')
		case mid <= requested:
			b.WriteRune('▒')
		default:
			b.WriteRune('░')
		}
	}
	return b.String()
}

// BarTone is a usage bar's tone: a warning when use exceeds requests (pods outgrow what the
// scheduler placed them by).
func BarTone(requested, used float64, hasUse bool) Tone {
	if hasUse && used > requested {
		return ToneWarning
	}
	return ToneInherit
}
