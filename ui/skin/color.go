package skin

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// colorHelp says what a color may be, for error messages.
const colorHelp = "a name like dodgerblue, #rrggbb, or default"

// parseColor reads a color as k9s writes it: one of tcell's color names in any case, #rrggbb, or
// default (the terminal's own color, tcell.ColorDefault). Names resolve to their RGB value, as
// k9s resolves them, so that black is #000000 whatever the terminal's palette says.
func parseColor(text string) (tcell.Color, bool) {
	name := strings.ToLower(text)
	if name == "default" {
		return tcell.ColorDefault, true
	}
	if strings.HasPrefix(name, "#") {
		return parseHex(name[1:])
	}
	c, ok := tcell.ColorNames[name]
	if !ok {
		return tcell.ColorDefault, false
	}
	return c.TrueColor(), true
}

// parseHex reads exactly six hexadecimal digits, rrggbb.
func parseHex(digits string) (tcell.Color, bool) {
	if len(digits) != 6 {
		return tcell.ColorDefault, false
	}
	v, err := strconv.ParseUint(digits, 16, 32)
	if err != nil {
		return tcell.ColorDefault, false
	}
	return tcell.NewHexColor(int32(v)), true
}
