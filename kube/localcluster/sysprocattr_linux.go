package localcluster

import "syscall"

// sysProcAttr puts a child in a process group of its own, so that Stop can signal everything it
// forks, and has the kernel SIGKILL it when the thread that started it (the spawner's) dies, which
// happens when this process dies, however it dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
