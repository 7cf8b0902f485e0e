package ui

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// lineMode leaves a terminal cooked (it echoes and edits the line) but without the keys that
// signal or end the input: Ctrl-C and Ctrl-Z would stop the console itself, not the shell, and
// Ctrl-D would end the input of a shell that never sees that end (kwok's exec), leaving it
// unreachable. They become plain characters. restore puts the terminal back.
func lineMode(fd int) (restore func(), err error) {
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return nil, fmt.Errorf("reading the terminal's mode for the shell: %w", err)
	}
	saved := *t
	t.Lflag &^= unix.ISIG
	t.Cc[unix.VEOF] = vdisable
	if err := unix.IoctlSetTermios(fd, setTermios, t); err != nil {
		return nil, fmt.Errorf("setting the terminal's mode for the shell: %w", err)
	}
	return func() { _ = unix.IoctlSetTermios(fd, setTermios, &saved) }, nil
}
