package app

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/nodepilot/nodepilot/engine/executor"
	"github.com/nodepilot/nodepilot/ui"
)

// Exec implements ui.Backend as kubectl exec does: the pods/exec subresource over WebSocket,
// falling back to SPDY when the API server (or a proxy on the way) cannot upgrade to it.
func (c *Console) Exec(ctx context.Context, namespace, pod string, opts ui.ExecOptions) error {
	if m := c.app.opts.mode(); m != executor.Live {
		// The clients refuse it too (kube.RefuseWrites); this says so before dialing.
		return fmt.Errorf("exec in pod %s/%s refused: nodepilot runs %s, and a shell can change anything", namespace, pod, m)
	}
	req := c.app.Clients.Kube.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: opts.Container, Command: opts.Command, Stdin: opts.Stdin != nil,
			Stdout: opts.Stdout != nil, Stderr: opts.Stderr != nil && !opts.TTY, TTY: opts.TTY}, scheme.ParameterCodec)
	ws, err := remotecommand.NewWebSocketExecutor(c.app.REST, "GET", req.URL().String())
	if err != nil {
		return fmt.Errorf("exec in pod %s/%s: %w", namespace, pod, err)
	}
	spdy, err := remotecommand.NewSPDYExecutor(c.app.REST, "POST", req.URL())
	if err != nil {
		return fmt.Errorf("exec in pod %s/%s: %w", namespace, pod, err)
	}
	exec, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return fmt.Errorf("exec in pod %s/%s: %w", namespace, pod, err)
	}
	so := remotecommand.StreamOptions{Stdin: opts.Stdin, Stdout: opts.Stdout, Tty: opts.TTY}
	if !opts.TTY {
		so.Stderr = opts.Stderr
	}
	if opts.TTY && opts.Sizes != nil {
		so.TerminalSizeQueue = sizeQueue(opts.Sizes)
	}
	if err := exec.StreamWithContext(ctx, so); err != nil {
		return fmt.Errorf("exec %q in pod %s/%s container %q: %w", opts.Command, namespace, pod, opts.Container, err)
	}
	return nil
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
