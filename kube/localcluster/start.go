package localcluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// Start starts a control plane and returns once kube-apiserver is ready, kube-scheduler and
// kube-controller-manager are healthy, kwok serves (and metrics-server, when asked for, serves
// metrics.k8s.io), and opts.CRDs are Established. ctx bounds the
// start only (together with opts.StartTimeout), not the life of the cluster. On error nothing is
// left running, and the error names the component at fault and its log file.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	binDir := opts.BinDir
	if binDir == "" {
		var err error
		if binDir, err = BinDir(); err != nil {
			return nil, err
		}
	}
	bins, err := findBinaries(binDir)
	if err != nil {
		return nil, err
	}
	dir, err := makeDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	creds, err := writeCredentials(dir)
	if err != nil {
		return nil, err
	}
	l, err := newLayout(dir, creds)
	if err != nil {
		return nil, err
	}
	admin := kubeconfig(l.apiserverURL(), creds.token)
	if err := writeKubeconfig(l.kubeconfig, admin); err != nil {
		return nil, err
	}
	if opts.KubeconfigOut != "" {
		if err := writeKubeconfig(opts.KubeconfigOut, admin); err != nil {
			return nil, err
		}
	}
	if err := writeKwokConfig(l); err != nil {
		return nil, err
	}

	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Cluster{
		Dir:        dir,
		Kubeconfig: l.kubeconfig,
		server:     l.apiserverURL(),
		token:      creds.token,
		log:        log.With("component", "localcluster"),
		spawner:    newSpawner(),
	}
	if err := c.start(ctx, bins, l, opts); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	return c, nil
}

// makeDir returns dir, created if needed, or a new temporary folder if dir is empty.
func makeDir(dir string) (string, error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "nodepilot-cluster-")
		if err != nil {
			return "", fmt.Errorf("localcluster: create temporary folder: %w", err)
		}
		return tmp, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("localcluster: create folder %s: %w", dir, err)
	}
	return dir, nil
}

// start starts the components in order and waits for each to be ready.
func (c *Cluster) start(ctx context.Context, bins binaries, l layout, opts Options) error {
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	begin := time.Now()
	probes := newProbeClient()
	defer probes.CloseIdleConnections()

	// etcd and kube-apiserver start together: the API server retries etcd until it answers.
	if _, err := c.startProcess(etcdName, bins, l.etcdArgs()); err != nil {
		return err
	}
	apiserver, err := c.startProcess(apiserverName, bins, l.apiserverArgs())
	if err != nil {
		return err
	}
	if err := waitReady(ctx, apiserver, c.procs, httpProbe(probes, l.apiserverURL()+"/readyz", c.token)); err != nil {
		return err
	}
	c.log.Info("kube-apiserver ready", "url", c.server, "after", time.Since(begin).Round(time.Millisecond))

	// The API server's clients start together once it serves.
	health := map[string]string{
		schedulerName:  loopback("https", l.schedulerPort) + "/healthz",
		controllerName: loopback("https", l.controllerPort) + "/healthz",
		kwokName:       loopback("http", l.kwokPort) + "/healthz",
	}
	args := map[string][]string{
		schedulerName:  l.schedulerArgs(),
		controllerName: l.controllerArgs(),
		kwokName:       l.kwokArgs(),
	}
	names := []string{schedulerName, controllerName, kwokName}
	if opts.MetricsServer {
		names = append(names, metricsServerName)
		health[metricsServerName] = loopback("https", l.metricsServerPort) + "/livez"
		args[metricsServerName] = l.metricsServerArgs()
	}
	var clients []*process
	for _, name := range names {
		p, err := c.startProcess(name, bins, args[name])
		if err != nil {
			return err
		}
		clients = append(clients, p)
	}
	for _, p := range clients {
		if err := waitReady(ctx, p, c.procs, httpProbe(probes, health[p.name], "")); err != nil {
			return err
		}
	}

	if opts.MetricsServer {
		if err := registerMetricsServer(ctx, c.RESTConfig(), l.metricsServerPort); err != nil {
			return err
		}
	}
	if err := installCRDs(ctx, c.RESTConfig(), opts.CRDs); err != nil {
		return err
	}
	c.log.Info("cluster ready", "dir", c.Dir, "crds", len(opts.CRDs), "after", time.Since(begin).Round(time.Millisecond))
	return nil
}

// startProcess starts the component name with args and remembers it for Stop.
func (c *Cluster) startProcess(name string, bins binaries, args []string) (*process, error) {
	p, err := startProcess(c.spawner, c.Dir, name, bins[name], args, nil)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	return p, nil
}
