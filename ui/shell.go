package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// shellCommand opens bash where the container has it, else sh, as k9s does; pipeShell is
// the shell where exec gives no terminal: sh told it is interactive, so that it prompts.
var (
	shellCommand = []string{"sh", "-c", "command -v bash >/dev/null 2>&1 && exec bash || exec sh"}
	pipeShell    = []string{"sh", "-i"}
)

// Terminal is what a shell session takes over while the console is suspended.
type Terminal interface {
	// Session runs a session on the terminal: raw mode for its length when raw, its input and
	// output, and its sizes (the first at once, then each change, closed when the session ends).
	Session(ctx context.Context, raw bool, run func(in io.Reader, out io.Writer, sizes <-chan TerminalSize) error) error
}

// ttyTerminal is the console's own terminal: stdin in raw mode, resizes from SIGWINCH.
type ttyTerminal struct{}

// Session implements Terminal. The terminal's state is restored however run ends.
func (ttyTerminal) Session(ctx context.Context, raw bool, run func(io.Reader, io.Writer, <-chan TerminalSize) error) error {
	fd := int(os.Stdin.Fd())
	if raw {
		old, err := term.MakeRaw(fd)
		if err != nil {
			return fmt.Errorf("putting the terminal in raw mode for the shell: %w", err)
		}
		defer term.Restore(fd, old)
	} else {
		restore, err := lineMode(fd)
		if err != nil {
			return err
		}
		defer restore()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sizes := make(chan TerminalSize, 1)
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		// The sizes' owner: it stops, and closes them, with the session.
		defer close(done)
		defer close(sizes)
		defer signal.Stop(winch)
		for {
			if w, h, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
				select {
				case sizes <- TerminalSize{Width: uint16(w), Height: uint16(h)}:
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-winch:
			case <-ctx.Done():
				return
			}
		}
	}()
	err := run(stdinUntil{ctx: ctx, f: os.Stdin}, os.Stdout, sizes)
	cancel()
	<-done
	return err
}

// openShell opens a shell in the selected pod's container (picked when it has several). The
// console is suspended (the terminal given back) for the session, and comes back when the
// shell exits.
func (c *Console) openShell(p *pane) {
	c.withContainer(p, "s opens a shell in a pod: select a pod", "shell", func(ns, name, ctr string) {
		note, pipes := c.info.ShellNote, c.info.ShellPipes
		session := func() {
			err := c.opts.Terminal.Session(context.Background(), !pipes, func(in io.Reader, out io.Writer, sizes <-chan TerminalSize) error {
				fmt.Fprintf(out, "nodepilot: shell in %s/%s container %s; exit returns to the console\r\n", ns, name, ctr)
				if note != "" {
					fmt.Fprintf(out, "nodepilot: %s\r\n", note)
				}
				opts := ExecOptions{Container: ctr, Command: shellCommand, Stdin: in, Stdout: out, TTY: true, Sizes: sizes}
				if pipes {
					opts = ExecOptions{Container: ctr, Command: pipeShell, Stdin: in, Stdout: out, Stderr: out}
				}
				return c.backend.Exec(context.Background(), ns, name, opts)
			})
			switch {
			case err != nil:
				c.flash.err(fmt.Sprintf("shell in %s/%s: %v", ns, name, err))
			case note != "":
				c.flash.info(fmt.Sprintf("shell in %s/%s (%s) ended; %s", ns, name, ctr, note))
			default:
				c.flash.info(fmt.Sprintf("shell in %s/%s (%s) ended", ns, name, ctr))
			}
			c.replan()
		}
		if c.suspend == nil || !c.suspend(session) {
			// Driven synchronously (tests), or tview is not running: nothing to suspend.
			session()
		}
	})
}

// stdinUntil reads a terminal until ctx ends, then reports its end without reading: the exec's
// stdin copier outlives the session, and a read it left blocked on the terminal would take the
// console's next key.
type stdinUntil struct {
	ctx context.Context
	f   *os.File
}

// stdinPoll is how often a blocked read looks at ctx.
const stdinPoll = 100

// Read implements io.Reader: it reads only once the terminal has input, while ctx lasts.
func (s stdinUntil) Read(p []byte) (int, error) {
	fds := []unix.PollFd{{Fd: int32(s.f.Fd()), Events: unix.POLLIN}}
	for {
		if s.ctx.Err() != nil {
			return 0, io.EOF
		}
		n, err := unix.Poll(fds, stdinPoll)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, fmt.Errorf("waiting for the terminal's input: %w", err)
		case n > 0 && s.ctx.Err() == nil:
			return s.f.Read(p)
		}
	}
}
