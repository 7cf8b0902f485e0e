//go:build unix && !linux

package localcluster

import "syscall"

// sysProcAttr puts a child in a process group of its own, so that Stop can signal everything it
// forks. Without Linux's parent-death signal, children outlive a SIGKILLed parent here.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
