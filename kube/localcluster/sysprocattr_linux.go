package localcluster

import "syscall"

// sysProcAttr puts a child in a session (and so a process group) of its own, so that Stop can
// signal everything it forks, and without a controlling terminal: kwok's exec runs commands on this
// machine, and an interactive shell it starts would otherwise open the console's terminal and fight
// it for the foreground. It also has the kernel SIGKILL it when the thread that started it (the spawner's) dies, which
// happens when this process dies, however it dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
