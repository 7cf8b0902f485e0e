package localcluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is one running component of the control plane, writing its output to its own log file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process has exited and been reaped
	waitErr error         // how it exited; read only after exited is closed
}

// startProcess starts the binary bin with args (and env added to this process's environment) from
// the spawner, in a process group of its own, its output appended to dir/NAME.log. A goroutine
// reaps it; it ends when the process exits.
func startProcess(sp *spawner, dir, name, bin string, args, env []string) (*process, error) {
	p := &process{name: name, logPath: filepath.Join(dir, name+".log"), exited: make(chan struct{})}
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, p.errorf("open log: %w", err)
	}
	defer log.Close() // the child holds its own copy of the descriptor
	p.cmd = exec.Command(bin, args...)
	p.cmd.Dir = dir
	if len(env) > 0 {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stdout = log
	p.cmd.Stderr = log
	p.cmd.SysProcAttr = sysProcAttr()
	if err := sp.start(p.cmd); err != nil {
		return nil, p.errorf("start %s: %w", bin, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// pid returns the process id, which is also its process group id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// errorf returns an error naming the component and its log file.
func (p *process) errorf(format string, args ...any) error {
	return fmt.Errorf("localcluster: %s (log %s): %w", p.name, p.logPath, fmt.Errorf(format, args...))
}

// exitError returns a non-nil error if the process has exited.
func (p *process) exitError() error {
	select {
	case <-p.exited:
		tail := logTail(p.logPath)
		if p.waitErr == nil {
			return p.errorf("exited unexpectedly with status 0%s", tail)
		}
		return p.errorf("exited unexpectedly: %w%s", p.waitErr, tail)
	default:
		return nil
	}
}

// tailLines is how many lines of its log an exit error quotes: enough for the line that says why,
// which a component writes last, and a test's or a user's temporary folder may be gone by the
// time anyone reads the log itself.
const tailLines = 5

// logTail is the last tailLines lines of the log at path, as text to append to an error, or ""
// when the log is empty or cannot be read.
func logTail(path string) string {
	lines, err := lastLines(path, tailLines)
	if err != nil || len(lines) == 0 {
		return ""
	}
	return "; its log ends:\n\t" + strings.Join(lines, "\n\t")
}

// lineBytes is how many bytes per line lastLines reads at most: a log of any length costs no more
// than n of its longest lines.
const lineBytes = 512

// lastLines is the last n lines of the log at path that are not blank, read from no more than its
// last n*lineBytes bytes (the first of them cut where that read starts).
func lastLines(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, min(st.Size(), int64(n*lineBytes)))
	if _, err := f.ReadAt(buf, st.Size()-int64(len(buf))); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(buf), "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines[max(0, len(lines)-n):], nil
}

// signalGroup sends sig to the process's group, unless it has already exited.
func (p *process) signalGroup(sig syscall.Signal) error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	if err := syscall.Kill(-p.pid(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return p.errorf("send %v to process group %d: %w", sig, p.pid(), err)
	}
	return nil
}

// reapTimeout is how long a SIGKILLed process may take to be reaped.
const reapTimeout = 10 * time.Second

// stopProcesses sends SIGTERM to every process's group, gives them grace to exit together, then
// SIGKILLs the groups of those still running and waits for them to be reaped.
func stopProcesses(ps []*process, grace time.Duration) error {
	var errs []error
	for _, p := range ps {
		errs = append(errs, p.signalGroup(syscall.SIGTERM))
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	expired := false
	for _, p := range ps {
		if !expired {
			select {
			case <-p.exited:
				continue
			case <-timer.C:
				expired = true
			}
		}
		errs = append(errs, p.signalGroup(syscall.SIGKILL))
	}
	for _, p := range ps {
		select {
		case <-p.exited:
		case <-time.After(reapTimeout):
			errs = append(errs, p.errorf("still running %v after SIGKILL", reapTimeout))
		}
	}
	return errors.Join(errs...)
}
