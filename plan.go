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
	var output string
	var zones []string
	var atMax bool
	var solve solveFlags
	cmd := &cobra.Command{
		Use:   "plan -f FILE|DIR [-f ...] [--at-max] [-o table|json|yaml]",
		Short: "Show the nodes Karpenter would launch for these manifests, and why any pod cannot be placed",
		Long: `plan reads NodePools, EC2NodeClasses, workloads (Pods, Deployments, ReplicaSets, StatefulSets,
Jobs), DaemonSets, Nodes, PodDisruptionBudgets, HorizontalPodAutoscalers and KEDA ScaledObjects from
files or folders, and prints the NodeClaims it would launch over the embedded us-east-1 catalog, the
pods it would put on existing nodes, every pod it cannot place with a reason per NodePool, and each
NodePool's limits against what the plan would hold. Workloads run at their replicas as written, or
with --at-max at their scalers' maximums (the peak). Spot prices are synthetic estimates.
Exit status: 0 for a plan (even with unschedulable pods), 1 for input errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return errors.New("no manifests: give -f FILE or -f DIR (for example -f testdata/manifests/seeds)")
			}
			if !slices.Contains(plan.Formats(), output) {
				return fmt.Errorf("-o %q: use one of %s", output, strings.Join(plan.Formats(), ", "))
			}
			opts, err := solve.options()
			if err != nil {
				return err
			}
			loaded, err := manifest.Load(files...)
			if err != nil {
				return err
			}
			set, err := loaded.Scaled(atMax)
			if err != nil {
				return err
			}
			cat, err := catalog.Load()
			if err != nil {
				return fmt.Errorf("embedded catalog: %w", err)
			}
			for _, z := range zones {
				if !slices.Contains(cat.Zones(), z) {
					return fmt.Errorf("--zones %s: the catalog's zones are %s", z, strings.Join(cat.Zones(), ", "))
				}
			}
			pr := plan.Build(set, cat, opts, zones)
			r := scheduling.Solve(pr.Input)
			notes := append(set.Notes, pr.Notes...)
			if note := packingNote(pr.Input, r); note != "" {
				notes = append(notes, note)
			}
			return plan.Render(out, plan.From(pr, r, notes), output)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "a manifest file or a folder of them (repeatable)")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or yaml")
	cmd.Flags().BoolVar(&atMax, "at-max", false, "plan every workload a HorizontalPodAutoscaler or ScaledObject scales at its maximum replicas")
	cmd.Flags().StringSliceVar(&zones, "zones", nil, "plan in these zones only, comma-separated (default: every zone of the catalog, which the demo's emulator also has)")
	solve.register(cmd.Flags(), scheduling.DefaultOptions())
	return cmd
}

// packingNote says, for a plan packed as Karpenter packs, what cost packing would pay for the
// same pods, when that is at least 1% less: the price of answering as Karpenter does.
func packingNote(in *scheduling.Input, r *scheduling.Results) string {
	if in.Options.Packing != scheduling.PackingKarpenter {
		return ""
	}
	cost := *in
	cost.Options.Packing = scheduling.PackingCost
	alt := scheduling.Solve(&cost)
	karpenter, cheaper := r.TotalPricePerHour(), alt.TotalPricePerHour()
	if karpenter == 0 || len(alt.Unschedulable) > len(r.Unschedulable) || cheaper > 0.99*karpenter {
		return ""
	}
	return fmt.Sprintf("packed as Karpenter packs (each new node takes pods while any of its instance types holds them all): $%.2f/h on %d nodes; "+
		"--packing Cost would launch %d nodes for $%.2f/h (%.0f%% less)", karpenter, len(r.NewNodeClaims), len(alt.NewNodeClaims), cheaper, 100*(1-cheaper/karpenter))
}
