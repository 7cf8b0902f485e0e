package app

import (
	"context"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/ui"
)

// Logs implements ui.Backend: reading logs is not a write, so read-only allows it.
func (c *Console) Logs(ctx context.Context, namespace, pod string, opts ui.LogOptions) (io.ReadCloser, error) {
	o := &corev1.PodLogOptions{Container: opts.Container, Follow: opts.Follow, Previous: opts.Previous, Timestamps: opts.Timestamps}
	if opts.TailLines > 0 {
		o.TailLines = &opts.TailLines
	}
	return kube.PodLogs(ctx, c.app.Clients.Kube, namespace, pod, o)
}

// Exec implements ui.Backend through kube.Exec, as an action of the executor: refused in
// read-only and dry-run (the clients refuse it too, kube.RefuseWrites) and journaled.
func (c *Console) Exec(ctx context.Context, namespace, pod string, opts ui.ExecOptions) error {
	name := namespace + "/" + pod
	a := executor.Action{Kind: executor.ExecInPod, Object: "pod/" + name,
		Message: fmt.Sprintf("exec %q in pod %s container %q (console)", strings.Join(opts.Command, " "), name, opts.Container)}
	return c.app.Executor.Do(ctx, a, func(ctx context.Context) error { return c.exec(ctx, namespace, pod, opts) })
}

// exec runs the command over the API server's streaming protocol.
func (c *Console) exec(ctx context.Context, namespace, pod string, opts ui.ExecOptions) error {
	so := remotecommand.StreamOptions{Stdin: opts.Stdin, Stdout: opts.Stdout, Tty: opts.TTY}
	if !opts.TTY {
		so.Stderr = opts.Stderr
	}
	if opts.TTY && opts.Sizes != nil {
		so.TerminalSizeQueue = sizeQueue(opts.Sizes)
	}
	return kube.Exec(ctx, c.app.REST, c.app.Clients.Kube, namespace, pod, opts.Container, opts.Command, so)
}

// sizeQueue hands the console's terminal sizes to remotecommand; nil once they end.
type sizeQueue <-chan ui.TerminalSize

// Next implements remotecommand.TerminalSizeQueue.
func (q sizeQueue) Next() *remotecommand.TerminalSize {
	s, ok := <-q
	if !ok {
		return nil
	}
	return &remotecommand.TerminalSize{Width: s.Width, Height: s.Height}
}
