package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/kube/manifest"
	"github.com/nodepilot/nodepilot/plan"
	"github.com/nodepilot/nodepilot/rightsizing"
)

func planCommand(out io.Writer) *cobra.Command {
	var files []string
	var kustomization, output, usageFile string
	var zones []string
	var atMax, compare bool
	var solve solveFlags
	cmd := &cobra.Command{
		Use:   "plan (-f FILE|DIR [-f ...] | -k DIR | --compare A B) [--at-max] [--usage FILE] [-o table|json|yaml]",
		Short: "Show the nodes Karpenter would launch for these manifests, and why any pod cannot be placed",
		Long: `plan reads NodePools, EC2NodeClasses, workloads (Pods, Deployments, ReplicaSets, StatefulSets,
Jobs), DaemonSets, Nodes, PodDisruptionBudgets, HorizontalPodAutoscalers and KEDA ScaledObjects from
files or folders (-f) or from what a kustomization builds (-k), and prints the NodeClaims it would
launch over the embedded us-east-1 catalog, the pods it would put on existing nodes, every pod it
cannot place with a reason per NodePool, and each NodePool's limits against what the plan would
hold. Workloads run at their replicas as written, or with --at-max at their scalers' maximums (the
peak). --compare A B plans two sources (each a kustomization folder, a folder or a file) the same
way and prints what changes from A to B. --usage FILE reads what pods used (PodMetrics, as
kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods writes them; several readings in one file or
folder make a window) and adds the right-sizing of every workload: requests against use, the
requests that fit, and the plan's price with them. Spot prices are synthetic estimates.
Exit status: 0 for a plan (even with unschedulable pods), 1 for input errors.`,
		Args: func(_ *cobra.Command, args []string) error {
			if compare && len(args) != 2 {
				return fmt.Errorf("--compare takes two sources, A and B, got %d", len(args))
			}
			if !compare && len(args) > 0 {
				return fmt.Errorf("unexpected argument %q: give manifests with -f or -k, or two sources with --compare", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			given := 0
			for _, g := range []bool{len(files) > 0, kustomization != "", compare} {
				if g {
					given++
				}
			}
			switch {
			case given == 0:
				return errors.New("no manifests: give -f FILE or -f DIR (for example -f testdata/manifests/seeds), -k DIR or --compare A B")
			case given > 1:
				return errors.New("-f, -k and --compare cannot be combined: give one of them")
			}
			if !slices.Contains(plan.Formats(), output) {
				return fmt.Errorf("-o %q: use one of %s", output, strings.Join(plan.Formats(), ", "))
			}
			opts, err := solve.options()
			if err != nil {
				return err
			}
			cat, err := catalog.Load()
			if err != nil {
				return fmt.Errorf("embedded catalog: %w", err)
			}
			var readings *manifest.Set
			if usageFile != "" {
				if compare {
					return errors.New("--usage works with -f or -k, not --compare")
				}
				if readings, err = loadReadings(usageFile); err != nil {
					return err
				}
			}
			for _, z := range zones {
				if !slices.Contains(cat.Zones(), z) {
					return fmt.Errorf("--zones %q: the catalog's zones are %s", z, strings.Join(cat.Zones(), ", "))
				}
			}
			planOf := func(set *manifest.Set, err error) (*plan.Plan, error) {
				if err != nil {
					return nil, err
				}
				if set, err = set.Scaled(atMax); err != nil {
					return nil, err
				}
				pr := plan.Build(set, cat, opts, zones)
				r := scheduling.Solve(pr.Input)
				notes := append(set.Notes, pr.Notes...)
				if note := packingNote(pr.Input, r); note != "" {
					notes = append(notes, note)
				}
				if len(set.PodMetrics) > 0 && readings == nil {
					notes = append(notes, fmt.Sprintf("%d PodMetrics readings are among the manifests: give them with --usage to right-size", len(set.PodMetrics)))
				}
				p := plan.From(pr, r, notes)
				if readings != nil {
					p.RightSizing = plan.RightSize(cmd.Context(), pr, readings.PodMetrics, rightsizing.DefaultPolicy())
					p.Notes = append(p.Notes, readings.Notes...)
				}
				return p, nil
			}
			if !compare {
				var p *plan.Plan
				if kustomization != "" {
					p, err = planOf(manifest.LoadKustomization(kustomization))
				} else {
					var set *manifest.Set
					set, err = manifest.Load(files...)
					p, err = planOf(set, flagError("-f", "", err))
				}
				if err != nil {
					return err
				}
				return plan.Render(out, p, output)
			}
			var sides [2]*plan.Plan
			for i, source := range args {
				if sides[i], err = planOf(loadSource(source)); err != nil {
					return flagError("--compare", source, err)
				}
			}
			return plan.RenderComparison(out, plan.Compare(args[0], sides[0], args[1], sides[1]), output)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "a manifest file or a folder of them (repeatable)")
	cmd.Flags().StringVarP(&kustomization, "kustomize", "k", "", "a folder with a kustomization.yaml: plan what it builds")
	cmd.Flags().BoolVar(&compare, "compare", false, "plan two sources, A and B (each a kustomization folder, a folder or a file), and print what changes")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or yaml")
	cmd.Flags().BoolVar(&atMax, "at-max", false, "plan every workload a HorizontalPodAutoscaler or ScaledObject scales at its maximum replicas")
	cmd.Flags().StringVar(&usageFile, "usage", "", "right-size from what pods used: a file or folder of PodMetrics readings (kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods)")
	cmd.Flags().StringSliceVar(&zones, "zones", nil, "plan in these zones only, comma-separated (default: every zone of the catalog, which the demo's emulator also has)")
	// plan answers as the provisioner would launch
	solve.register(cmd.Flags(), provisioning.DefaultOptions().Scheduling)
	return cmd
}

// loadSource reads one side of a comparison: what a kustomization folder builds, else the
// manifests of a folder or file.
func loadSource(path string) (*manifest.Set, error) {
	if manifest.IsKustomization(path) {
		return manifest.LoadKustomization(path)
	}
	return manifest.Load(path)
}

// flagError says which flag (and value, unless "") gave the input that err is about: "FLAG
// PATH: problem" when the path names no manifest, else "FLAG VALUE: err". nil stays nil.
func flagError(flag, value string, err error) error {
	var pe *manifest.PathError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return fmt.Errorf("%s %w", flag, err)
	case value == "":
		return fmt.Errorf("%s: %w", flag, err)
	}
	return fmt.Errorf("%s %s: %w", flag, value, err)
}

// loadReadings reads --usage: PodMetrics readings, and nothing else that planning would use.
func loadReadings(path string) (*manifest.Set, error) {
	set, err := manifest.Load(path)
	if err != nil {
		return nil, flagError("--usage", "", err)
	}
	if len(set.PodMetrics) == 0 {
		return nil, fmt.Errorf("--usage %s: no PodMetrics readings in it; write some with kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods > FILE", path)
	}
	if others := len(set.Pods) + len(set.NodePools) + len(set.NodeClaims) + len(set.EC2NodeClasses) + len(set.Nodes) + len(set.DaemonSets) +
		len(set.PDBs) + len(set.Scalers); others > 0 {
		return nil, fmt.Errorf("--usage %s: it holds %d objects other than PodMetrics readings; give manifests with -f and readings with --usage", path, others)
	}
	return set, nil
}

// packingNote says, for a plan packed as Karpenter packs, what two other packings would pay for
// the same pods when that differs by at least 1%: Karpenter's with no price cliff (what the cliff
// saves), and cost packing (what packing as Karpenter does costs).
func packingNote(in *scheduling.Input, r *scheduling.Results) string {
	price := r.TotalPricePerHour()
	if in.Options.Packing != scheduling.PackingKarpenter || price == 0 {
		return ""
	}
	alternative := func(o scheduling.Options) *scheduling.Results {
		alt := *in
		alt.Options = o
		a := scheduling.Solve(&alt)
		if len(a.Unschedulable) > len(r.Unschedulable) {
			return nil
		}
		return a
	}
	var parts []string
	how := "packed as Karpenter packs (each new node takes pods while any of its instance types holds them all"
	if cliff := in.Options.PriceCliff; cliff > 0 {
		how += fmt.Sprintf(", short of a type that costs %gx as much for them", cliff)
		o := in.Options
		o.PriceCliff = 0
		if a := alternative(o); a != nil && a.TotalPricePerHour() >= 1.01*price {
			parts = append(parts, fmt.Sprintf("Karpenter (--price-cliff 0) would launch %d nodes for $%.2f/h (%.0f%% more)",
				len(a.NewNodeClaims), a.TotalPricePerHour(), 100*(a.TotalPricePerHour()/price-1)))
		}
	}
	o := in.Options
	o.Packing = scheduling.PackingCost
	if a := alternative(o); a != nil && a.TotalPricePerHour() <= 0.99*price {
		parts = append(parts, fmt.Sprintf("--packing Cost would launch %d nodes for $%.2f/h (%.0f%% less)",
			len(a.NewNodeClaims), a.TotalPricePerHour(), 100*(1-a.TotalPricePerHour()/price)))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s): $%.2f/h on %d nodes; %s", how, price, len(r.NewNodeClaims), strings.Join(parts, "; "))
}
