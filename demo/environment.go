package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/app"
	"github.com/nodepilot/nodepilot/aws"
	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/aws/emulator"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/kube/apis/crds"
	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// ClusterName is the demo cluster's name: its discovery tag value and its interruption queue.
const ClusterName = "my-cluster"

// Options shape the demo.
type Options struct {
	// KubeconfigOut is an extra path for the demo cluster's admin kubeconfig (for kubectl, k9s).
	KubeconfigOut string
	// Dir keeps the control plane's files and logs (a new temporary folder when empty).
	Dir    string
	Logger *slog.Logger
	// BootDelay is how long an emulated instance stays pending; JoinDelay how long after it
	// runs its Node registers; InterruptionNotice how long a spot interruption warning comes
	// before the instance is taken back (AWS: two minutes).
	BootDelay, JoinDelay, InterruptionNotice time.Duration
	// HoldSpotPrices keeps the emulator's spot prices still, so that runs at different times
	// see one market (a benchmark comparing controllers); they move every 10 minutes otherwise.
	HoldSpotPrices bool
	// Autoscaler tunes the loops (dry run included).
	Autoscaler autoscaler.Options
	// Manifests are the objects applied (their *.yaml files); the demo's seeds when nil.
	Manifests fs.FS
	// Controller is the autoscaler that runs the cluster: ControllerNodepilot (the default),
	// ControllerKarpenter (the real Karpenter controller, nodepilot's console watching it
	// read-only) or ControllerNone (nothing provisions; the console watches).
	Controller string
	Registry   prometheus.Registerer
	// WrapTransport, when set, wraps nodepilot's own connection to the API server (not the
	// demo's setup), so that a test can see every request nodepilot sends.
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// Metrics runs metrics-server (kubectl top, the HPA's resource metrics) and simulates the
	// Deployments' CPU and memory use, rising and falling over 15 minutes.
	Metrics bool
	// LoadClock tells the simulated load the time (the real clock when nil): a test holds the
	// load where it wants it.
	LoadClock clock.PassiveClock
}

// The controllers the demo can run.
const (
	ControllerNodepilot = "nodepilot"
	ControllerKarpenter = "karpenter"
	ControllerNone      = "none"
)

// Controllers lists them, the default first.
func Controllers() []string {
	return []string{ControllerNodepilot, ControllerKarpenter, ControllerNone}
}

// nodepilotREST is the config nodepilot reaches the demo cluster with.
func nodepilotREST(cfg *rest.Config, wrap func(http.RoundTripper) http.RoundTripper) *rest.Config {
	if wrap != nil {
		cfg = rest.CopyConfig(cfg)
		cfg.Wrap(wrap)
	}
	return cfg
}

// DefaultOptions fit the demo's story in a few minutes. Spot-to-spot consolidation is on: the
// story's spot node keeps the api pods when inflate goes, and only a smaller spot node can take
// its place.
func DefaultOptions() Options {
	as := autoscaler.DefaultOptions()
	as.Disruption.SpotToSpot = true
	return Options{BootDelay: 3 * time.Second, JoinDelay: 2 * time.Second, InterruptionNotice: 20 * time.Second, Autoscaler: as, Metrics: true}
}

// Environment is a running demo: the control plane, the emulator and nodepilot over them.
type Environment struct {
	Cluster    *localcluster.Cluster
	Emulator   *emulator.Emulator
	App        *app.App
	Kubeconfig string
	// AWSSettings is the file beside Kubeconfig that points a process at the emulator
	// (AWS_ENDPOINT_URL, the region, credentials, the cluster's name and queue).
	AWSSettings string
	// Deployments are the demo's Deployments ("namespace/name"), which the console scales.
	Deployments []string
	// clients are the demo's own, for its setup and its story (scaling, lifting a budget):
	// those writes are the user's, not nodepilot's, so a dry-run or read-only App, whose clients
	// refuse writes, does not make them.
	clients   *kube.Clients
	opts      Options
	instances *instances
	// cron are the ScaledObjects the demo plays.
	cron []*cronScaler
}

// Start starts the control plane and the emulator, applies the demo's manifests and builds
// nodepilot over them. Run runs it; Close stops everything, also when Start fails half way.
func Start(ctx context.Context, opts Options) (env *Environment, err error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	crdList, err := crds.All()
	if err != nil {
		return nil, err
	}
	env = &Environment{opts: opts}
	defer func() {
		if err != nil {
			env.Close()
			env = nil
		}
	}()
	env.Cluster, err = localcluster.Start(ctx, localcluster.Options{Dir: opts.Dir, CRDs: crdList, KubeconfigOut: opts.KubeconfigOut, Logger: opts.Logger,
		MetricsServer: opts.Metrics})
	if err != nil {
		return env, fmt.Errorf("starting the local control plane: %w", err)
	}
	env.Kubeconfig = env.Cluster.Kubeconfig
	if opts.KubeconfigOut != "" {
		env.Kubeconfig = opts.KubeconfigOut
	}
	if env.clients, err = kube.NewClients(env.Cluster.RESTConfig()); err != nil {
		return env, err
	}
	version, err := env.clients.Kube.Discovery().ServerVersion()
	if err != nil {
		return env, fmt.Errorf("asking the local control plane its version: %w", err)
	}
	cat, err := catalog.Load()
	if err != nil {
		return env, err
	}
	emuCfg := emulator.DefaultConfig()
	emuCfg.ClusterName, emuCfg.BootDelay, emuCfg.InterruptionNotice = ClusterName, opts.BootDelay, opts.InterruptionNotice
	// The catalog's zones, which plan uses too: both say the same of where capacity exists.
	emuCfg.Zones = cat.Zones()
	emuCfg.ShutdownDelay, emuCfg.Seed, emuCfg.HoldSpotPrices = 2*time.Second, 1, opts.HoldSpotPrices
	// What EKS would say of this cluster: Karpenter reads its service CIDR for AL2023 nodes.
	emuCfg.Cluster = emulator.EKSCluster{Endpoint: env.Cluster.RESTConfig().Host, ServiceCIDR: localcluster.ServiceCIDR,
		Version: version.Major + "." + strings.TrimSuffix(version.Minor, "+")}
	env.Emulator, err = emulator.Start(ctx, emuCfg)
	if err != nil {
		return env, fmt.Errorf("starting the AWS emulator: %w", err)
	}
	env.AWSSettings = filepath.Join(filepath.Dir(env.Kubeconfig), "aws.env")
	if err := writeAWSSettings(env.AWSSettings, env.Emulator); err != nil {
		return env, err
	}
	env.instances = newInstances(env.Emulator, cat)
	env.App, err = app.New(ctx, env.AppOptions(opts.Controller == "" || opts.Controller == ControllerNodepilot))
	if err != nil {
		return env, err
	}
	manifests := opts.Manifests
	if manifests == nil {
		if manifests, err = fs.Sub(manifestFiles, "manifests"); err != nil {
			return env, err
		}
	}
	done, err := apply(ctx, env.clients, ClusterName, manifests)
	if err != nil {
		return env, err
	}
	env.Deployments, env.cron = done.deployments, done.cron
	return env, nil
}

// Apply creates the objects of manifests' *.yaml files as Start does with its manifests, while
// the demo runs: a workload that arrives when a controller is already up. Its Deployments are not
// added to those the console scales, nor its ScaledObjects played.
func (e *Environment) Apply(ctx context.Context, manifests fs.FS) error {
	_, err := apply(ctx, e.clients, ClusterName, manifests)
	return err
}

// Clients are the demo's own clients, which act as the user: they write whatever controller
// runs.
func (e *Environment) Clients() *kube.Clients { return e.clients }

// AppOptions are nodepilot's options over the demo's cluster and emulator; live acts, else
// nodepilot only watches (beside another controller, or none).
func (e *Environment) AppOptions(live bool) app.Options {
	return app.Options{
		ReadOnly:    !live,
		REST:        nodepilotREST(e.Cluster.RESTConfig(), e.opts.WrapTransport),
		ClusterName: ClusterName,
		AWS: aws.ConfigOptions{Region: e.Emulator.Region(), HTTPClient: e.Emulator.HTTPClient(),
			Credentials: credentials.NewStaticCredentialsProvider("demo", "demo", "")},
		Endpoints:  aws.Endpoints{}.All(e.Emulator.Endpoint()),
		QueueName:  e.Emulator.QueueURL(),
		Autoscaler: e.opts.Autoscaler,
		Logger:     e.opts.Logger,
		Registry:   e.opts.Registry,
		// metrics-server runs with the simulated load; usage is read where it does.
		Usage: e.opts.Metrics,
	}
}

// KarpenterOptions point Karpenter at the demo's cluster and emulator, with the demo's
// settings: a spot node may be replaced by a cheaper spot node, as nodepilot's demo does.
func (e *Environment) KarpenterOptions() localcluster.ControllerOptions {
	return localcluster.ControllerOptions{ClusterName: ClusterName, ClusterEndpoint: e.Cluster.RESTConfig().Host,
		AWSEndpoint: e.Emulator.Endpoint(), Region: e.Emulator.Region(), InterruptionQueue: e.Emulator.QueueName(),
		FeatureGates: "SpotToSpotConsolidation=true"}
}

// Run runs nodepilot (or Karpenter, and nodepilot's console read-only), the node registrar and
// the simulated load until ctx ends.
func (e *Environment) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if e.opts.Controller == ControllerKarpenter {
		// It stops with the cluster (Close).
		if _, err := e.Cluster.StartKarpenter(ctx, e.KarpenterOptions()); err != nil {
			return err
		}
	}
	registered := make(chan error, 1)
	go func() { registered <- e.Cluster.RegisterNodes(ctx, e.instances, e.opts.JoinDelay) }()
	loaded, scaled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(loaded)
		if e.opts.Metrics {
			e.runLoad(ctx)
		}
	}()
	go func() {
		defer close(scaled)
		e.runCron(ctx, e.cron)
	}()
	err := e.App.Run(ctx)
	cancel()
	<-loaded
	<-scaled
	if rerr := <-registered; rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = errors.Join(err, rerr)
	}
	return err
}

// writeAWSSettings writes, as NAME=value lines a shell can source, what points a process at the
// emulator: the AWS SDK's endpoint, region and credentials, and the cluster's name and queue under
// the names Karpenter reads.
func writeAWSSettings(path string, em *emulator.Emulator) error {
	settings := fmt.Sprintf("# The demo's AWS emulator (set -a; . %s): the AWS SDK, nodepilot and Karpenter read these.\n"+
		"AWS_ENDPOINT_URL=%s\nAWS_REGION=%s\nAWS_ACCESS_KEY_ID=demo\nAWS_SECRET_ACCESS_KEY=demo\nAWS_EC2_METADATA_DISABLED=true\n"+
		"CLUSTER_NAME=%s\nINTERRUPTION_QUEUE=%s\n", path, em.Endpoint(), em.Region(), ClusterName, em.QueueName())
	if err := os.WriteFile(path, []byte(settings), 0o600); err != nil {
		return fmt.Errorf("writing the emulator's settings: %w", err)
	}
	return nil
}

// Close stops the emulator and the control plane; nothing of the demo keeps running.
func (e *Environment) Close() {
	if e.Emulator != nil {
		_ = e.Emulator.Close()
	}
	if e.Cluster != nil {
		_ = e.Cluster.Stop()
	}
}
