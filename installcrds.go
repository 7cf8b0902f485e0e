package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/kube/apis/crds"
)

// installCRDsTimeout bounds install-crds: applying three CRDs and seeing them Established takes
// well under a second on a healthy API server.
const installCRDsTimeout = 2 * time.Minute

func installCRDsCommand(out io.Writer) *cobra.Command {
	var kubeconfig, kubeContext string
	var force bool
	cmd := &cobra.Command{
		Use:   "install-crds [--kubeconfig PATH] [--context NAME] [--force]",
		Short: "Create or update the NodePool, NodeClaim and EC2NodeClass CRDs (karpenter.sh/v1, karpenter.k8s.aws/v1)",
		Long: `install-crds server-side applies nodepilot's CustomResourceDefinitions, the same as Karpenter v1's,
and waits until the API server serves them. It needs rights to patch customresourcedefinitions
(a cluster administrator's). Running it again updates them in place.

It changes nothing if an installed CRD serves a version or field nodepilot's lacks (a newer
Karpenter's): the API server would prune those fields from stored objects. --force replaces them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := kube.RESTConfig(kubeconfig, kubeContext)
			if err != nil {
				return err
			}
			all, err := crds.All()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), installCRDsTimeout)
			defer cancel()
			if err := kube.InstallCRDs(ctx, cfg, force); err != nil {
				return err
			}
			for _, crd := range all {
				fmt.Fprintf(out, "customresourcedefinition %s established\n", crd.Name)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "path of the kubeconfig (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	cmd.Flags().BoolVar(&force, "force", false, "replace CRDs even where the installed ones serve fields nodepilot's lack (a newer Karpenter's)")
	cmd.Flags().StringVar(&kubeContext, "context", "", "kubeconfig context to use (default: the current one)")
	return cmd
}
