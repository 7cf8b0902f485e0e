package app

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/ui"
)

// Logs implements ui.Backend: the pods/log subresource, which the API server proxies from the
// node's kubelet (kwok's server in the demo). Reading logs is not a write, so read-only allows it.
func (c *Console) Logs(ctx context.Context, namespace, pod string, opts ui.LogOptions) (io.ReadCloser, error) {
	o := &corev1.PodLogOptions{Container: opts.Container, Follow: opts.Follow, Previous: opts.Previous, Timestamps: opts.Timestamps}
	if opts.TailLines > 0 {
		o.TailLines = &opts.TailLines
	}
	rc, err := c.app.Clients.Kube.CoreV1().Pods(namespace).GetLogs(pod, o).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("logs of pod %s/%s container %q: %w", namespace, pod, opts.Container, err)
	}
	return rc, nil
}
