package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/nodepilot/nodepilot/demo"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/userfile"
)

func demoCommand(out io.Writer) *cobra.Command {
	var headless, noAutoplay bool
	var kubeconfigOut, dir, controller, metricsAddr string
	var flags autoscalerFlags
	var console consoleFlags
	cmd := &cobra.Command{
		Use:   "demo [--headless] [--no-autoplay] [--autoscaler nodepilot|karpenter|none] [--kubeconfig-out PATH]",
		Short: "Run nodepilot on a local control plane and the AWS emulator, with no cloud account",
		Long: `demo starts a real Kubernetes control plane on 127.0.0.1 (etcd, kube-apiserver, kube-scheduler,
kube-controller-manager, and kwok to run the nodes' pods), an in-process AWS emulator, the seed NodePools
and EC2NodeClasses and a few workloads, runs the autoscaler over them and opens the console. A scripted
story plays (a toggles it): inflate scales out, is scaled to zero and consolidated, scales out again and
its spot node is interrupted and replaced. + and - scale the selected Deployment, i interrupts the
selected spot node. It writes a kubeconfig so that kubectl and k9s can watch and change the same
cluster, and aws.env beside it, which points the AWS SDK (nodepilot controller, Karpenter, the AWS
CLI) at the emulator. --autoscaler karpenter runs the real Karpenter controller instead (built by
make karpenter) and the console watches it read-only; none runs no autoscaler. Quitting (:q, Ctrl-C)
stops everything.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := demo.DefaultOptions()
			var err error
			if !slices.Contains(demo.Controllers(), controller) {
				return fmt.Errorf("--autoscaler %q: use one of %s", controller, strings.Join(demo.Controllers(), ", "))
			}
			opts.Controller = controller
			if opts.Autoscaler, err = flags.options(); err != nil {
				return err
			}
			var ref string
			var sk *skin.Skin
			if !headless {
				if ref, sk, err = console.skinRef(); err != nil {
					return err
				}
				if err := needTerminal(); err != nil {
					return err
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			if dir == "" {
				if dir, err = os.MkdirTemp("", "nodepilot-demo-"); err != nil {
					return err
				}
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("--dir %s: %w", dir, err)
			}
			logPath := filepath.Join(dir, "nodepilot.log")
			// --dir may be a folder the user keeps: append to a previous demo's log, never truncate a file.
			logFile, err := userfile.OpenLog(logPath)
			if err != nil {
				return fmt.Errorf("--dir: %w", err)
			}
			defer logFile.Close()
			opts.Logger, opts.Dir, opts.KubeconfigOut = slog.New(slog.NewTextHandler(logFile, nil)), dir, kubeconfigOut
			// client-go logs through klog, to stderr by default: that would tear the console.
			klog.SetSlogLogger(opts.Logger)
			fmt.Fprintln(out, "starting the local control plane and the AWS emulator (the first run after `make k8s-bins` takes a few seconds)")
			var metricsAt string
			if metricsAddr != "" {
				registry := newRegistry()
				srv, addr, err := listen(ctx, opts.Logger, metricsAddr, metricsMux(registry, false))
				if err != nil {
					return fmt.Errorf("--metrics-addr: %w", err)
				}
				defer srv.Close()
				opts.Registry, metricsAt = registry, fmt.Sprintf("metrics: http://%s/metrics\n", addr)
			}
			env, err := demo.Start(ctx, opts)
			if err != nil {
				return err
			}
			defer env.Close()
			fmt.Fprint(out, metricsAt)
			fmt.Fprintf(out, "demo cluster ready: kubectl --kubeconfig %s get nodes\nAWS emulator: %s (settings for the AWS SDK, nodepilot and Karpenter: set -a; . %s)\nlogs: %s\n",
				env.Kubeconfig, env.Emulator.Endpoint(), env.AWSSettings, logPath)
			story := env.NewStory(!noAutoplay)
			return alongside(ctx, env.Run, func(ctx context.Context) error {
				go story.Run(ctx)
				if headless {
					streamStatus(ctx, out, env, story) // until Ctrl-C or SIGTERM
					return nil
				}
				return runConsole(ctx, env.Console(story), ref, sk, console.mouse, opts.Logger, "")
			})
		},
	}
	cmd.Flags().BoolVar(&headless, "headless", false, "stream a one-line status per change instead of opening the console")
	cmd.Flags().BoolVar(&noAutoplay, "no-autoplay", false, "start with the story held (a plays it in the console)")
	cmd.Flags().StringVar(&kubeconfigOut, "kubeconfig-out", "", "also write the demo cluster's kubeconfig here")
	cmd.Flags().StringVar(&metricsAddr, "metrics-addr", "", "also serve nodepilot's Prometheus metrics (Karpenter's names) on this address, such as 127.0.0.1:8080")
	cmd.Flags().StringVar(&dir, "dir", "", "keep the control plane's files and logs here (default: a new temporary folder)")
	cmd.Flags().StringVar(&controller, "autoscaler", demo.ControllerNodepilot, "the autoscaler that runs the cluster: "+strings.Join(demo.Controllers(), ", "))
	flags.register(cmd.Flags(), demo.DefaultOptions().Autoscaler)
	console.registerScreen(cmd.Flags())
	return cmd
}

// streamStatus prints one line whenever the cluster's summary or the story changes, at most
// once a second.
func streamStatus(ctx context.Context, out io.Writer, env *demo.Environment, story *demo.Story) {
	changes := env.App.Cluster.Subscribe()
	last := ""
	for {
		if line := env.Status() + "  | " + story.Status(); line != last {
			fmt.Fprintf(out, "%s  %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		select {
		case <-ctx.Done():
			return
		case <-changes:
		case <-time.After(5 * time.Second):
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}
