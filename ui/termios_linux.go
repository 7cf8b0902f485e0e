package ui

import "golang.org/x/sys/unix"

// The termios requests and the "no character" value of this system.
const (
	getTermios = unix.TCGETS
	setTermios = unix.TCSETS
	vdisable   = 0
)
