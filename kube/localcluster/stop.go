package localcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Stop ends the cluster: SIGTERM to each component's process group, SIGKILL after a short grace,
// and waits for them to exit; the API server's clients go first and etcd last. It then deletes
// etcd's data and keeps the logs, certificates and kubeconfig in Dir. Calling Stop again returns the
// first call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() { c.stopErr = c.stop() })
	return c.stopErr
}

// stop does Stop's work once.
func (c *Cluster) stop() error {
	c.mu.Lock()
	c.stopped = true
	procs := c.procs
	c.mu.Unlock()
	// The autoscalers first: clients of the API server, like the next stage.
	stages := [][]string{{karpenterName, nodepilotName}, {metricsServerName, kwokName, controllerName, schedulerName}, {apiserverName}, {etcdName}}
	var errs []error
	for _, names := range stages {
		var ps []*process
		for _, p := range procs {
			for _, name := range names {
				if p.name == name {
					ps = append(ps, p)
				}
			}
		}
		errs = append(errs, stopProcesses(ps, stopGrace))
	}
	c.spawner.close()
	data := filepath.Join(c.Dir, "etcd")
	if err := os.RemoveAll(data); err != nil {
		errs = append(errs, fmt.Errorf("localcluster: remove etcd data %s: %w", data, err))
	}
	return errors.Join(errs...)
}
