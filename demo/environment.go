package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"

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
	// Autoscaler tunes the loops (dry run included).
	Autoscaler autoscaler.Options
	Registry   prometheus.Registerer
	// WrapTransport, when set, wraps nodepilot's own connection to the API server (not the
	// demo's setup), so that a test can see every request nodepilot sends.
	WrapTransport func(http.RoundTripper) http.RoundTripper
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
	return Options{BootDelay: 3 * time.Second, JoinDelay: 2 * time.Second, InterruptionNotice: 20 * time.Second, Autoscaler: as}
}

// Environment is a running demo: the control plane, the emulator and nodepilot over them.
type Environment struct {
	Cluster    *localcluster.Cluster
	Emulator   *emulator.Emulator
	App        *app.App
	Kubeconfig string
	// Deployments are the demo's Deployments ("namespace/name"), which the console scales.
	Deployments []string
	// clients are the demo's own, for its setup and its story (scaling, lifting a budget):
	// those writes are the user's, not nodepilot's, so a dry-run or read-only App, whose clients
	// refuse writes, does not make them.
	clients   *kube.Clients
	opts      Options
	instances *instances
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
	env.Cluster, err = localcluster.Start(ctx, localcluster.Options{Dir: opts.Dir, CRDs: crdList, KubeconfigOut: opts.KubeconfigOut, Logger: opts.Logger})
	if err != nil {
		return env, fmt.Errorf("starting the local control plane: %w", err)
	}
	env.Kubeconfig = env.Cluster.Kubeconfig
	if opts.KubeconfigOut != "" {
		env.Kubeconfig = opts.KubeconfigOut
	}
	emuCfg := emulator.DefaultConfig()
	emuCfg.ClusterName, emuCfg.BootDelay, emuCfg.InterruptionNotice = ClusterName, opts.BootDelay, opts.InterruptionNotice
	emuCfg.ShutdownDelay, emuCfg.Seed = 2*time.Second, 1
	env.Emulator, err = emulator.Start(ctx, emuCfg)
	if err != nil {
		return env, fmt.Errorf("starting the AWS emulator: %w", err)
	}
	cat, err := catalog.Load()
	if err != nil {
		return env, err
	}
	env.instances = newInstances(env.Emulator, cat)
	env.App, err = app.New(ctx, app.Options{
		REST:        nodepilotREST(env.Cluster.RESTConfig(), opts.WrapTransport),
		ClusterName: ClusterName,
		AWS: aws.ConfigOptions{Region: env.Emulator.Region(), HTTPClient: env.Emulator.HTTPClient(),
			Credentials: credentials.NewStaticCredentialsProvider("demo", "demo", "")},
		Endpoints:  aws.Endpoints{}.All(env.Emulator.Endpoint()),
		QueueName:  env.Emulator.QueueURL(),
		Autoscaler: opts.Autoscaler,
		Logger:     opts.Logger,
		Registry:   opts.Registry,
	})
	if err != nil {
		return env, err
	}
	if env.clients, err = kube.NewClients(env.Cluster.RESTConfig()); err != nil {
		return env, err
	}
	if env.Deployments, err = apply(ctx, env.clients, ClusterName); err != nil {
		return env, err
	}
	return env, nil
}

// Run runs nodepilot and the node registrar until ctx ends.
func (e *Environment) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	registered := make(chan error, 1)
	go func() { registered <- e.Cluster.RegisterNodes(ctx, e.instances, e.opts.JoinDelay) }()
	err := e.App.Run(ctx)
	cancel()
	if rerr := <-registered; rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = errors.Join(err, rerr)
	}
	return err
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
