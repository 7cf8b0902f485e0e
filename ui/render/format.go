package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// HoursPerMonth turns $/h into $/month, as AWS's calculator does.
const HoursPerMonth = 730

// None is what an empty or unknown cell shows.
const None = "-"

// Age is how long ago t was, as kubectl prints it ("5m", "2d3h").
func Age(now, t time.Time) string {
	if t.IsZero() {
		return None
	}
	return humanDuration(now.Sub(t))
}

// Countdown is how long until t: "in 3m12s", or "now" once passed.
func Countdown(now, t time.Time) string {
	if t.IsZero() {
		return None
	}
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "now"
	case d < 10*time.Minute:
		return "in " + d.Truncate(time.Second).String()
	}
	return "in " + humanDuration(d)
}

// Dollars prints a price: three decimals under ten dollars, two above, with thousands
// separators ("$0.096", "$1,234.50").
func Dollars(x float64) string {
	if math.IsNaN(x) {
		return None
	}
	prec := 2
	if math.Abs(x) < 10 {
		prec = 3
	}
	s := strconv.FormatFloat(math.Abs(x), 'f', prec, 64)
	whole, frac, _ := strings.Cut(s, ".")
	out := "$" + thousands(whole) + "." + frac
	if x < 0 {
		return "-" + out
	}
	return out
}

// Monthly prints $/h as whole dollars a month ("$3,073").
func Monthly(perHour float64) string {
	return "$" + thousands(strconv.FormatFloat(math.Round(perHour*HoursPerMonth), 'f', 0, 64))
}

func thousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// CPU prints millicores as Kubernetes does: "250m", "2", "1.5".
func CPU(milli int64) string { return string(appendCPU(make([]byte, 0, 8), milli)) }

func appendCPU(b []byte, milli int64) []byte {
	switch {
	case milli%1000 == 0:
		return strconv.AppendInt(b, milli/1000, 10)
	case milli < 1000:
		return append(strconv.AppendInt(b, milli, 10), 'm')
	}
	return strconv.AppendFloat(b, float64(milli)/1000, 'f', 1, 64)
}

// Mem prints bytes in binary units: "512Mi", "7.5Gi".
func Mem(bytes int64) string { return string(appendMem(make([]byte, 0, 8), bytes)) }

func appendMem(b []byte, bytes int64) []byte {
	const mi, gi = 1 << 20, 1 << 30
	switch {
	case bytes == 0:
		return append(b, '0')
	case bytes < gi:
		return append(strconv.AppendInt(b, (bytes+mi/2)/mi, 10), "Mi"...)
	case bytes%gi == 0:
		return append(strconv.AppendInt(b, bytes/gi, 10), "Gi"...)
	}
	return append(strconv.AppendFloat(b, float64(bytes)/gi, 'f', 1, 64), "Gi"...)
}

// CPUOf prints "requested/allocatable" millicores ("1.5/4").
func CPUOf(used, total int64) string {
	b := appendCPU(make([]byte, 0, 16), used)
	return string(appendCPU(append(b, '/'), total))
}

// MemOf prints "requested/allocatable" bytes ("1.5Gi/8Gi").
func MemOf(used, total int64) string {
	b := appendMem(make([]byte, 0, 16), used)
	return string(appendMem(append(b, '/'), total))
}

// UsedOf prints what is used and its share of what could be ("340m 17%"), or None without a
// figure.
func UsedOf(used, total int64, has bool, format func([]byte, int64) []byte) string {
	if !has {
		return None
	}
	b := append(format(make([]byte, 0, 16), used), ' ')
	if total <= 0 {
		return string(append(b, None...))
	}
	return string(appendPercent(b, float64(used), float64(total)))
}

// Percent prints part of whole ("42%"), or None when whole is zero.
func Percent(part, whole float64) string {
	if whole <= 0 {
		return None
	}
	return string(appendPercent(make([]byte, 0, 5), part, whole))
}

func appendPercent(b []byte, part, whole float64) []byte {
	return append(strconv.AppendInt(b, int64(math.Round(100*part/whole)), 10), '%')
}

// Ratio is part/whole, or 0 when whole is zero.
func Ratio(part, whole float64) float64 {
	if whole <= 0 {
		return 0
	}
	return part / whole
}

// Of prints "used/total" with a formatter ("1.5/4").
func Of[T any](used, total T, format func(T) string) string {
	return format(used) + "/" + format(total)
}

// Plural prints a count and a noun, pluralised in English's simplest way ("1 node", "3 nodes").
func Plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Truncate shortens s to n runes, with an ellipsis.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}
