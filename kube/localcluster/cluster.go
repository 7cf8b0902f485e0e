package localcluster

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// Cluster is a running local control plane: etcd, kube-apiserver, kube-scheduler,
// kube-controller-manager and kwok on 127.0.0.1. Its processes live until Stop, or until this
// process dies.
type Cluster struct {
	// Dir is the folder holding the cluster's files and its components' logs (NAME.log).
	Dir string
	// Kubeconfig is the path of the admin kubeconfig, in Dir.
	Kubeconfig string

	server, token string
	log           *slog.Logger
	spawner       *spawner
	mu            sync.Mutex
	procs         []*process // in start order; guarded by mu
	// stopped is set once Stop has begun: no process starts after it.
	stopped bool

	stopOnce sync.Once
	stopErr  error
}

// Component describes one process of a running cluster.
type Component struct {
	Name string // "etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager" or "kwok"
	PID  int    // also its process group id
	Log  string // path of its log file
}

// RESTConfig returns a new admin client configuration for the cluster.
func (c *Cluster) RESTConfig() *rest.Config {
	return restConfig(c.server, c.token)
}

// Components lists the cluster's processes in start order.
func (c *Cluster) Components() []Component {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Component, 0, len(c.procs))
	for _, p := range c.procs {
		out = append(out, Component{Name: p.name, PID: p.pid(), Log: p.logPath})
	}
	return out
}

// LogTails is the last lines of every component's log, to explain a failure.
func (c *Cluster) LogTails(lines int) string {
	var b strings.Builder
	for _, comp := range c.Components() {
		last, err := lastLines(comp.Log, lines)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", comp.Name, err)
			continue
		}
		fmt.Fprintf(&b, "--- last %d lines of %s ---\n%s\n", lines, comp.Log, strings.Join(last, "\n"))
	}
	return b.String()
}
