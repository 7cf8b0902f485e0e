package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/klog/v2"

	"github.com/nodepilot/nodepilot/app"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/kube"
)

func controllerCommand(out io.Writer) *cobra.Command {
	var cf clusterFlags
	var metricsAddr, healthAddr, leaseNamespace, logLevel string
	var leaderElect, profiling bool
	var flags autoscalerFlags
	cmd := &cobra.Command{
		Use:   "controller --cluster-name NAME [--region REGION] [--interruption-queue NAME]",
		Short: "Run the autoscaler headless: leader election, /metrics, /healthz and /readyz, structured logs",
		Long: `controller runs nodepilot's autoscaler without the console, for clusters that want one binary
instead of a controller stack: install it with the Helm chart charts/nodepilot; replicas elect a
leader on a Lease and only the leader acts. AWS credentials and region come the standard way
(environment, shared config, web identity or pod identity, instance metadata).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := flags.options()
			if err != nil {
				return err
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return fmt.Errorf("--log-level %q: use debug, info, warn or error", logLevel)
			}
			logger := slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level}))
			// client-go (leader election, reflectors) logs through klog: keep one log stream.
			klog.SetSlogLogger(logger)
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			registry := newRegistry()
			appOpts := cf.appOptions(opts, logger)
			appOpts.Registry = registry
			a, err := app.New(ctx, appOpts)
			if err != nil {
				return err
			}
			var leading atomic.Bool
			var leaseRead atomic.Int64 // unix nanoseconds of the last read of the Lease
			// A dry run writes nothing, the Lease included: it takes no part in the election, so
			// it can never keep a live replica from leading.
			elect := leaderElect && !opts.DryRun
			servers, err := serveProbes(ctx, logger, metricsAddr, healthAddr, metricsMux(registry, profiling), func() error {
				var read time.Time // zero until the Lease is first read
				if n := leaseRead.Load(); n != 0 {
					read = time.Unix(0, n)
				}
				return readiness(elect && !leading.Load(), a.Ready, read, time.Now())
			})
			if err != nil {
				return err
			}
			defer servers()
			var runErr error
			run := func(ctx context.Context) {
				leading.Store(true)
				defer leading.Store(false)
				if runErr = a.Run(ctx); runErr != nil {
					logger.Error("nodepilot stopped", "error", runErr)
				}
			}
			if !elect {
				run(ctx)
				return runErr
			}
			// The hostname (a pod's name) says which replica leads; the suffix keeps two
			// replicas on one host (or a restarted pod with the same name) apart.
			host, _ := os.Hostname()
			identity := host + "_" + string(uuid.NewUUID())
			err = kube.RunWithLeaderElection(ctx, a.REST, leaseNamespace, kube.LeaseName, identity, run,
				func(at time.Time) { leaseRead.Store(at.UnixNano()) })
			return errors.Join(runErr, err)
		},
	}
	f := cmd.Flags()
	cf.register(f)
	f.StringVar(&metricsAddr, "metrics-addr", ":8080", "address serving /metrics")
	f.StringVar(&healthAddr, "health-addr", ":8081", "address serving /healthz and /readyz")
	f.BoolVar(&profiling, "enable-profiling", false, "also serve Go's profiles under /debug/pprof/ on the metrics address (Karpenter's setting of the same name)")
	f.BoolVar(&leaderElect, "leader-elect", true, "elect a leader among replicas on a Lease")
	f.StringVar(&leaseNamespace, "leader-election-namespace", envOr("POD_NAMESPACE", "nodepilot"), "namespace of the leader election Lease")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	flags.register(f, autoscaler.DefaultOptions())
	return cmd
}

// readiness says why this replica is not ready, or nil. A standby (electing, not leading) is
// ready while it reads the Lease it would take over, at least once a lease duration: one that
// cannot reach the API server could not lead. Any other replica is ready when its App is.
func readiness(standby bool, appReady func() error, leaseRead, now time.Time) error {
	if !standby {
		return appReady()
	}
	if leaseRead.IsZero() {
		return errors.New("standing by: the leader election Lease has not been read yet")
	}
	if now.Sub(leaseRead) > kube.LeaseDuration {
		return fmt.Errorf("standing by: the leader election Lease has not been read for over %s (is the API server out of reach?)", kube.LeaseDuration)
	}
	return nil
}

// metricsMux serves reg's /metrics and, when profiling, Go's profiles under /debug/pprof/, which
// an operator reads with go tool pprof (off by default: a profile costs CPU while it is taken).
func metricsMux(reg *prometheus.Registry, profiling bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// serveProbes serves metrics on one address and /healthz, /readyz on another; the returned
// function stops both. Each change of readiness is logged once, with its reason.
func serveProbes(ctx context.Context, logger *slog.Logger, metricsAddr, healthAddr string, metrics *http.ServeMux, ready func() error) (func(), error) {
	health := healthMux(logger, ready)
	var servers []*http.Server
	for _, s := range []struct {
		addr string
		mux  *http.ServeMux
	}{{metricsAddr, metrics}, {healthAddr, health}} {
		srv, _, err := listen(ctx, logger, s.addr, s.mux)
		if err != nil {
			for _, srv := range servers {
				_ = srv.Close()
			}
			return nil, err
		}
		servers = append(servers, srv)
	}
	return func() {
		for _, srv := range servers {
			_ = srv.Close()
		}
	}, nil
}

// listen serves mux on addr until the server is closed; it returns the address bound (addr's
// port may be 0).
func listen(ctx context.Context, logger *slog.Logger, addr string, mux *http.ServeMux) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listening on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("server stopped", "addr", addr, "error", err)
		}
	}()
	return srv, ln.Addr().String(), nil
}

// newRegistry is a metrics registry with the Go runtime's and the process's collectors, as
// client_golang's default one has.
func newRegistry() *prometheus.Registry {
	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return registry
}

// healthMux serves /healthz and /readyz, logging each change of readiness once.
func healthMux(logger *slog.Logger, ready func() error) *http.ServeMux {
	health := http.NewServeMux()
	health.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	var mu sync.Mutex
	last := "unknown"
	health.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		err := ready()
		now := "ready"
		if err != nil {
			now = err.Error()
		}
		mu.Lock()
		if now != last {
			if err != nil {
				logger.Warn("not ready", "reason", now)
			} else {
				logger.Info("ready")
			}
			last = now
		}
		mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return health
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
