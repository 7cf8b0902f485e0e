package kube

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/streaming/pkg/httpstream"
)

// PodLogs streams a container's logs (pods/log), which the API server proxies from the node's
// kubelet; the caller closes the reader.
func PodLogs(ctx context.Context, client kubernetes.Interface, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	rc, err := client.CoreV1().Pods(namespace).GetLogs(pod, opts).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("logs of pod %s/%s container %q: %w", namespace, pod, opts.Container, err)
	}
	return rc, nil
}

// Exec runs a command in a container as kubectl exec does: pods/exec over WebSocket, falling
// back to SPDY when the API server (or a proxy on the way) cannot upgrade to it. The streams
// set in so decide what is attached; a command that exits non-zero is an error.
func Exec(ctx context.Context, cfg *rest.Config, client kubernetes.Interface, namespace, pod, container string, command []string, so remotecommand.StreamOptions) error {
	req := client.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: command, Stdin: so.Stdin != nil,
			Stdout: so.Stdout != nil, Stderr: so.Stderr != nil, TTY: so.Tty}, scheme.ParameterCodec)
	fail := func(err error) error {
		return fmt.Errorf("exec %q in pod %s/%s container %q: %w", command, namespace, pod, container, err)
	}
	ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", req.URL().String())
	if err != nil {
		return fail(err)
	}
	spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
	if err != nil {
		return fail(err)
	}
	exec, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return fail(err)
	}
	if err := exec.StreamWithContext(ctx, so); err != nil {
		return fail(err)
	}
	return nil
}
