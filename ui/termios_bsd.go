//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package ui

import "golang.org/x/sys/unix"

// The termios requests and the "no character" value of this system.
const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
	vdisable   = 0xff
)
