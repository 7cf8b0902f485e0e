package main

import (
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nodepilot/nodepilot/aws/emulator"
)

func emulatorCommand(out io.Writer) *cobra.Command {
	var listen, cluster string
	cmd := &cobra.Command{
		Use:   "emulator --listen 127.0.0.1:PORT",
		Short: "Run the AWS emulator (EC2, SQS, SSM, Pricing, IAM) on its own, with its admin API",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			cfg := emulator.DefaultConfig()
			cfg.ClusterName = cluster
			return emulator.Serve(ctx, cfg, listen, out)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:4566", "address to listen on (every service and the admin API)")
	cmd.Flags().StringVar(&cluster, "cluster-name", "my-cluster", "the discovery tag value and the interruption queue's name")
	return cmd
}
