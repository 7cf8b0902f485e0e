package uitest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nodepilot/nodepilot/ui"
)

// FakeLogLines is how many lines the fake serves for a container's logs.
const FakeLogLines = 40

// Logs implements ui.Backend: FakeLogLines deterministic lines of a web server, numbered, that
// name the pod and the container (and "previous" for the previous instance), one second apart
// from Now, so that a test can tell which stream it reads. The stream ends after the lines even
// when following, as a container that stopped writing would look.
func (f *Fake) Logs(_ context.Context, namespace, pod string, opts ui.LogOptions) (io.ReadCloser, error) {
	f.called("logs %s/%s %s previous=%t timestamps=%t", namespace, pod, opts.Container, opts.Previous, opts.Timestamps)
	if err := f.failure(); err != nil {
		return nil, err
	}
	instance := "current"
	if opts.Previous {
		instance = "previous"
	}
	paths := []string{"/", "/healthz", "/api/orders", "/api/cart", "/static/app.js"}
	codes := []int{200, 200, 201, 404, 500}
	first := 0
	if opts.TailLines > 0 && opts.TailLines < FakeLogLines {
		first = FakeLogLines - int(opts.TailLines)
	}
	var b strings.Builder
	for i := first; i < FakeLogLines; i++ {
		if opts.Timestamps {
			b.WriteString(Now().Add(time.Duration(i)*time.Second).UTC().Format(time.RFC3339) + " ")
		}
		fmt.Fprintf(&b, "%s %s line %02d: GET %s %d %s/%s\n", instance, opts.Container, i+1, paths[i%len(paths)], codes[i%len(codes)], namespace, pod)
	}
	return io.NopCloser(strings.NewReader(b.String())), nil
}

// Exec implements ui.Backend: an echoing shell. It reads stdin line by line and answers each
// line with "$ LINE" until "exit" or the end of input, and records the command and the first
// terminal size it was given.
func (f *Fake) Exec(ctx context.Context, namespace, pod string, opts ui.ExecOptions) error {
	size := "none"
	if opts.Sizes != nil {
		if s, ok := <-opts.Sizes; ok {
			size = fmt.Sprintf("%dx%d", s.Width, s.Height)
		}
	}
	f.called("exec %s/%s %s tty=%t size=%s %q", namespace, pod, opts.Container, opts.TTY, size, opts.Command)
	if err := f.failure(); err != nil {
		return err
	}
	if opts.Stdin == nil || opts.Stdout == nil {
		return nil
	}
	sc := bufio.NewScanner(opts.Stdin)
	for sc.Scan() && ctx.Err() == nil {
		if sc.Text() == "exit" {
			return nil
		}
		fmt.Fprintf(opts.Stdout, "$ %s\n", sc.Text())
	}
	return sc.Err()
}
