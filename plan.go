package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/kube/manifest"
	"github.com/nodepilot/nodepilot/plan"
)

func planCommand(out io.Writer) *cobra.Command {
	var files []string
	var output, preferences string
	cmd := &cobra.Command{
		Use:   "plan -f FILE|DIR [-f ...] [-o table|json|yaml]",
		Short: "Show the nodes Karpenter would launch for these manifests, and why any pod cannot be placed",
		Long: `plan reads NodePools, EC2NodeClasses, workloads (Pods, Deployments, ReplicaSets, StatefulSets,
Jobs), DaemonSets, Nodes and PodDisruptionBudgets from files or folders, and prints the NodeClaims
it would launch over the embedded us-east-1 catalog, the pods it would put on existing nodes, and
every pod it cannot place with a reason per NodePool. Spot prices are synthetic estimates.
Exit status: 0 for a plan (even with unschedulable pods), 1 for input errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return errors.New("no manifests: give -f FILE or -f DIR (for example -f testdata/manifests/seeds)")
			}
			if !slices.Contains(plan.Formats(), output) {
				return fmt.Errorf("-o %q: use one of %s", output, strings.Join(plan.Formats(), ", "))
			}
			policy := scheduling.PreferencePolicy(preferences)
			if policy != scheduling.PreferencesRespect && policy != scheduling.PreferencesIgnore {
				return fmt.Errorf("--preference-policy %q: use Respect or Ignore", preferences)
			}
			set, err := manifest.Load(files...)
			if err != nil {
				return err
			}
			cat, err := catalog.Load()
			if err != nil {
				return fmt.Errorf("embedded catalog: %w", err)
			}
			in, notes := plan.Build(set, cat, scheduling.Options{PreferencePolicy: policy})
			return plan.Render(out, plan.From(scheduling.Solve(in), append(set.Notes, notes...)), output)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "a manifest file or a folder of them (repeatable)")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or yaml")
	cmd.Flags().StringVar(&preferences, "preference-policy", string(scheduling.PreferencesRespect),
		"Respect treats soft constraints as required until they must be relaxed; Ignore drops them")
	return cmd
}
