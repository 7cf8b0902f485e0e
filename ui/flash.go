package ui

import "time"

// flashFor is how long a flash message stays.
const flashFor = 5 * time.Second

// flashLevel is how a flash message is colored.
type flashLevel uint8

const (
	flashInfoLevel flashLevel = iota
	flashWarnLevel
	flashErrLevel
)

// flash is the message line: what an action did, or why it did not.
type flash struct {
	text  string
	level flashLevel
	at    time.Time
}

func (c *Console) flashAt(level flashLevel, text string) {
	c.flash = flash{text: text, level: level, at: c.opts.Clock.Now()}
}

func (c *Console) flashInfo(text string) { c.flashAt(flashInfoLevel, text) }
func (c *Console) flashWarn(text string) { c.flashAt(flashWarnLevel, text) }
func (c *Console) flashErr(text string)  { c.flashAt(flashErrLevel, text) }

// current is the message to show now, or "" once it expired.
func (f flash) current(now time.Time) string {
	if f.text == "" || now.Sub(f.at) > flashFor {
		return ""
	}
	return f.text
}
