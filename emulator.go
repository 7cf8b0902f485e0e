package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nodepilot/nodepilot/aws/emulator"
	"github.com/nodepilot/nodepilot/aws/policy"
)

func emulatorCommand(out io.Writer) *cobra.Command {
	var listen, cluster, policyFile string
	cmd := &cobra.Command{
		Use:   "emulator --listen 127.0.0.1:PORT",
		Short: "Run the AWS emulator (EC2, SQS, SSM, Pricing, IAM) on its own, with its admin API",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			if exposed(listen) {
				// The admin API can launch, interrupt and fault anything: say so before anyone
				// else on the network finds out.
				_, port, _ := net.SplitHostPort(listen)
				fmt.Fprintf(cmd.ErrOrStderr(), "nodepilot emulator: warning: listening on %s, beyond loopback; the admin API (/_emulator) has no authentication: use --listen 127.0.0.1:%s\n", listen, port)
			}
			cfg := emulator.DefaultConfig()
			cfg.ClusterName = cluster
			if policyFile != "" {
				doc, err := os.ReadFile(policyFile)
				if err != nil {
					return fmt.Errorf("--policy: %w", err)
				}
				if cfg.Policy, err = policy.NewEvaluator(doc); err != nil {
					return fmt.Errorf("--policy %s: %w (nodepilot iam-policy prints one the emulator enforces)", policyFile, err)
				}
			}
			return emulator.Serve(ctx, cfg, listen, out)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:4566", "address to listen on (every service and the admin API)")
	cmd.Flags().StringVar(&cluster, "cluster-name", "my-cluster", "the discovery tag value and the interruption queue's name")
	cmd.Flags().StringVar(&policyFile, "policy", "", "an IAM policy (JSON) every call is authorized against, as IAM would: a call it does not allow is refused (try nodepilot iam-policy's, for account 123456789012)")
	return cmd
}

// exposed reports whether listening on listen (host:port) accepts connections from other hosts:
// an empty or unspecified host, an IP that is not loopback, or a host name that resolves to any
// address that is not loopback. An address that does not parse or resolve is not exposed: the
// listen itself fails with a better error.
func exposed(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "" {
		return true
	}
	ips := []net.IP{net.ParseIP(host)}
	if ips[0] == nil {
		if ips, err = net.LookupIP(host); err != nil {
			return false
		}
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return true
		}
	}
	return false
}
