package ui

import (
	"time"

	"k8s.io/utils/clock"
)

// flashFor is how long a flash message stays.
const flashFor = 5 * time.Second

// flashLevel is how a flash message is colored.
type flashLevel uint8

const (
	flashInfoLevel flashLevel = iota
	flashWarnLevel
	flashErrLevel
)

// flash is the message line: what an action did, or why it did not. UI goroutine only.
type flash struct {
	clock clock.PassiveClock
	text  string
	level flashLevel
	at    time.Time
}

func (f *flash) set(level flashLevel, text string) {
	f.text, f.level, f.at = text, level, f.clock.Now()
}

func (f *flash) info(text string) { f.set(flashInfoLevel, text) }
func (f *flash) warn(text string) { f.set(flashWarnLevel, text) }
func (f *flash) err(text string)  { f.set(flashErrLevel, text) }

// current is the message to show now, or "" once it expired.
func (f *flash) current() string {
	if f.text == "" || f.clock.Now().Sub(f.at) > flashFor {
		return ""
	}
	return f.text
}
