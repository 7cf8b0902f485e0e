//go:build unix && !linux

package localcluster

import "syscall"

// sysProcAttr puts a child in a session (and so a process group) of its own, so that Stop can
// signal everything it forks, without a controlling terminal (see the Linux one). Without Linux's parent-death signal, children outlive a SIGKILLed parent here.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
