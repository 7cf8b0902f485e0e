// Package quantity guards resource.ParseQuantity against inputs that take it minutes: its time
// grows faster than linearly with a decimal exponent's size (1e-100000 parses in 4 ms,
// 1e-99999999 in 82 s), and comparing or scaling a quantity with a huge positive exponent is as
// slow. Every quantity a user writes in a manifest is checked here before it is parsed.
package quantity

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxExponent bounds a quantity's decimal exponent: far beyond any resource (int64 ends at
// about 9.2e18, a nano is 1e-9), far below what makes parsing slow.
const MaxExponent = 1000

// CheckExponent reports a quantity whose decimal exponent (the e-7 of 5e-7) is beyond
// ±MaxExponent. It reads only the text's form; anything else is left for ParseQuantity to judge.
func CheckExponent(s string) error {
	rest := strings.TrimLeft(strings.TrimSpace(s), "+-")
	rest = strings.TrimLeft(rest, "0123456789.")
	if len(rest) < 2 || (rest[0] != 'e' && rest[0] != 'E') {
		return nil
	}
	digits := strings.TrimLeft(strings.TrimLeft(rest[1:], "+-"), "0")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil
	}
	if n, err := strconv.Atoi(digits); err == nil && len(digits) <= 9 && n <= MaxExponent {
		return nil
	}
	return fmt.Errorf("the exponent of %s is beyond ±%d: write the quantity in a form such as 500m, 2, 1.5 or 4Gi", shorten(s), MaxExponent)
}

// shorten keeps a message short whatever the input's length.
func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
