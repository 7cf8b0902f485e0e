package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// KarpenterVersion is the release of Karpenter's AWS provider whose controller the cluster can
// run, as hack/build-karpenter.sh builds it.
const KarpenterVersion = "v1.14.3"

// karpenterName and nodepilotName name the controllers' processes and log files.
const (
	karpenterName = "karpenter"
	nodepilotName = "nodepilot"
)

// karpenterBuildHint tells the user how to get the binary.
const karpenterBuildHint = "run `make karpenter` (first build ~13 min)"

// KarpenterBinary returns the path of the Karpenter controller hack/build-karpenter.sh builds:
// the cache root (as BinDir's), then karpenter/<version>/controller. The error says how to build
// it when it is missing.
func KarpenterBinary() (string, error) {
	bins, err := BinDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(filepath.Dir(filepath.Dir(bins)), "karpenter", KarpenterVersion, "controller")
	if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("localcluster: no Karpenter %s controller at %s: %s", KarpenterVersion, path, karpenterBuildHint)
	}
	return path, nil
}

// ControllerOptions say how a controller (Karpenter, or nodepilot's) reaches the cluster's AWS.
type ControllerOptions struct {
	// ClusterName names the cluster (discovery tags, the EKS cluster) and ClusterEndpoint its
	// API server for the nodes.
	ClusterName, ClusterEndpoint string
	// AWSEndpoint serves every AWS service (AWS_ENDPOINT_URL), in Region.
	AWSEndpoint, Region string
	// InterruptionQueue is the SQS queue's name ("" reads none).
	InterruptionQueue string
	// FeatureGates are Karpenter's (FEATURE_GATES), as "Name=true,..."; nodepilot has none.
	FeatureGates string
}

// Controller is a node autoscaler the cluster runs as one of its processes.
type Controller struct {
	// MetricsURL serves its Prometheus metrics.
	MetricsURL string
	p          *process
}

// PID is its process id.
func (k *Controller) PID() int { return k.p.pid() }

// awsEnv points a controller's AWS SDK at opts' endpoint.
func awsEnv(opts ControllerOptions) []string {
	return []string{
		"AWS_ENDPOINT_URL=" + opts.AWSEndpoint,
		"AWS_REGION=" + opts.Region,
		// The emulator takes any credentials; none may come from the environment or IMDS.
		"AWS_ACCESS_KEY_ID=localcluster", "AWS_SECRET_ACCESS_KEY=localcluster", "AWS_EC2_METADATA_DISABLED=true",
	}
}

// startController starts bin as the controller called name, with args and env, and returns once
// health serves "ok" on the health port (the second of ports; the first serves metrics).
func (c *Cluster) startController(ctx context.Context, name, bin string, args, env []string, ports []int) (*Controller, error) {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil, errors.New("localcluster: the cluster is stopped")
	}
	p, err := startProcess(c.spawner, c.Dir, name, bin, args, env)
	if err == nil {
		c.procs = append(c.procs, p)
	}
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	k := &Controller{MetricsURL: loopback("http", ports[0]) + "/metrics", p: p}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	probes := newProbeClient()
	defer probes.CloseIdleConnections()
	if err := waitReady(ctx, p, []*process{p}, httpProbe(probes, loopback("http", ports[1])+"/healthz", "")); err != nil {
		return nil, errors.Join(err, c.StopController(k))
	}
	c.log.Info(name+" ready", "metrics", k.MetricsURL)
	return k, nil
}

// StopController stops a controller the cluster runs, as a rollout would: SIGTERM, then SIGKILL
// after the grace.
func (c *Cluster) StopController(k *Controller) error {
	err := stopProcesses([]*process{k.p}, stopGrace)
	c.forget(k.p)
	return err
}

// StartKarpenter starts the real Karpenter controller against the cluster, with the admin
// kubeconfig and no leader election, and returns once its health probe answers. It runs until
// StopController or the cluster's Stop; its output goes to karpenter.log in the cluster's folder.
func (c *Cluster) StartKarpenter(ctx context.Context, opts ControllerOptions) (*Controller, error) {
	bin, err := KarpenterBinary()
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	env := append([]string{
		"KUBECONFIG=" + c.Kubeconfig,
		"CLUSTER_NAME=" + opts.ClusterName,
		"CLUSTER_ENDPOINT=" + opts.ClusterEndpoint,
		"INTERRUPTION_QUEUE=" + opts.InterruptionQueue,
		"DISABLE_LEADER_ELECTION=true",
		"METRICS_PORT=" + strconv.Itoa(ports[0]),
		"HEALTH_PROBE_PORT=" + strconv.Itoa(ports[1]),
		"FEATURE_GATES=" + opts.FeatureGates,
		"LOG_LEVEL=debug",
	}, awsEnv(opts)...)
	return c.startController(ctx, karpenterName, bin, nil, env, ports)
}

// StartNodepilot starts nodepilot's controller (bin is a nodepilot binary) against the cluster as
// StartKarpenter starts Karpenter: the same AWS settings, no leader election, its output in
// nodepilot.log. flags are further flags of `nodepilot controller` (such as --packing Cost).
func (c *Cluster) StartNodepilot(ctx context.Context, bin string, opts ControllerOptions, flags ...string) (*Controller, error) {
	args := []string{"controller", "--kubeconfig", c.Kubeconfig, "--cluster-name", opts.ClusterName, "--interruption-queue", opts.InterruptionQueue,
		"--leader-elect=false"}
	return c.StartReplica(ctx, nodepilotName, bin, opts, append(args, flags...), nil)
}

// StartReplica starts one nodepilot process called name (its output in name.log) with args, as a
// Deployment's container would run them, and env besides the AWS settings of opts. The cluster
// adds the metrics and health addresses, on free loopback ports, so that replicas can share the
// host. It returns once the health probe answers, which a standby replica does too.
func (c *Cluster) StartReplica(ctx context.Context, name, bin string, opts ControllerOptions, args, env []string) (*Controller, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	args = append(slices.Clone(args), "--metrics-addr", "127.0.0.1:"+strconv.Itoa(ports[0]), "--health-addr", "127.0.0.1:"+strconv.Itoa(ports[1]))
	return c.startController(ctx, name, bin, args, append(awsEnv(opts), env...), ports)
}

// KillController kills a controller the cluster runs with SIGKILL, as a node failure or the OOM
// killer would: it gets no chance to release its Lease or finish a write.
func (c *Cluster) KillController(k *Controller) error {
	err := k.p.signalGroup(syscall.SIGKILL)
	select {
	case <-k.p.exited:
	case <-time.After(reapTimeout):
		err = errors.Join(err, k.p.errorf("still running %v after SIGKILL", reapTimeout))
	}
	c.forget(k.p)
	return err
}

// forget drops p from the processes Stop stops.
func (c *Cluster) forget(p *process) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.procs = slices.DeleteFunc(c.procs, func(q *process) bool { return q == p })
}
