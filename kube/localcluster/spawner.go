package localcluster

import (
	"errors"
	"os/exec"
	"runtime"
)

// spawner starts child processes from one goroutine locked to its OS thread for the life of the
// cluster.
//
// Linux delivers a child's parent-death signal (Pdeathsig) when the thread that forked the child
// exits, not when the process does (see golang/go#27505). The Go runtime ends a thread when a
// goroutine locked to it returns, and may fork from any thread otherwise; either way a child could be
// killed while the cluster still runs, or outlive it. Starting every child from a thread that lives
// exactly as long as the cluster makes the signal mean "the parent process died": that thread only
// ends when close is called (after Stop has ended the children) or when the whole process dies.
type spawner struct {
	requests chan spawnRequest
	done     chan struct{}
}

// spawnRequest asks the spawner to start cmd and to send the result to result.
type spawnRequest struct {
	cmd    *exec.Cmd
	result chan error
}

// newSpawner starts the spawner's goroutine; close stops it.
func newSpawner() *spawner {
	s := &spawner{requests: make(chan spawnRequest), done: make(chan struct{})}
	go s.run()
	return s
}

// run serves start requests until close. It never unlocks its thread: when it returns, the runtime
// ends the thread, which delivers Pdeathsig to any child still running.
func (s *spawner) run() {
	runtime.LockOSThread()
	defer close(s.done)
	for req := range s.requests {
		req.result <- req.cmd.Start()
	}
}

// start starts cmd from the spawner's thread.
func (s *spawner) start(cmd *exec.Cmd) error {
	select {
	case <-s.done:
		return errors.New("spawner closed")
	default:
	}
	result := make(chan error, 1)
	s.requests <- spawnRequest{cmd: cmd, result: result}
	return <-result
}

// close stops the spawner's goroutine and waits for it. Call it once, after every child has exited.
func (s *spawner) close() {
	close(s.requests)
	<-s.done
}
