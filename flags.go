package main

import (
	"cmp"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/nodepilot/nodepilot/app"
	"github.com/nodepilot/nodepilot/aws"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/kube"
)

// clusterFlags say which cluster and cloud a command works on.
type clusterFlags struct {
	kubeconfig, context, clusterName, region, queue string
}

func (f *clusterFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig path (default: KUBECONFIG, ~/.kube/config, or the in-cluster config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context (default: the current one)")
	fs.StringVar(&f.clusterName, "cluster-name", "", "the cluster's name: instance tags and, usually, the discovery tag value (default: the EKS cluster of the kubeconfig context)")
	fs.StringVar(&f.region, "region", "", "AWS region (default: the EKS cluster's of the kubeconfig context, AWS_REGION, shared config, or instance metadata)")
	fs.StringVar(&f.queue, "interruption-queue", "", "SQS queue of EventBridge interruption events (default: none)")
}

// appOptions are the App's options for the flags' cluster and cloud. The cluster name and region
// not given come from the kubeconfig context when it names an EKS cluster, as the AWS CLI and
// eksctl write them.
func (f *clusterFlags) appOptions(as autoscaler.Options, logger *slog.Logger) app.Options {
	name, region := kube.EKSCluster(f.kubeconfig, f.context)
	return app.Options{Kubeconfig: f.kubeconfig, Context: f.context, ClusterName: cmp.Or(f.clusterName, name),
		AWS: aws.ConfigOptions{Region: cmp.Or(f.region, region), IMDSRegion: true}, QueueName: f.queue, Autoscaler: as, Logger: logger}
}

// solveFlags are the flags of how the scheduler solves, shared by plan and the autoscaler.
type solveFlags struct {
	preferences, packing string
	priceCliff           float64
}

func (f *solveFlags) register(fs *pflag.FlagSet, d scheduling.Options) {
	fs.StringVar(&f.preferences, "preference-policy", string(d.PreferencePolicy),
		"Respect treats soft constraints as required until they must be relaxed; Ignore drops them")
	fs.StringVar(&f.packing, "packing", string(d.Packing),
		"Karpenter fills a new NodeClaim while any of its instance types holds its pods, as Karpenter does; Cost opens another when the larger type would be poor value (a cheaper fleet)")
	fs.Float64Var(&f.priceCliff, "price-cliff", d.PriceCliff,
		"a new NodeClaim stops taking pods where the next instance type that holds them would cost this many times more for pods of their shape; 0 never stops, as Karpenter")
}

// options checks the flags and returns the solve's options.
func (f *solveFlags) options() (scheduling.Options, error) {
	o := scheduling.Options{PreferencePolicy: scheduling.PreferencePolicy(f.preferences), Packing: scheduling.Packing(f.packing), PriceCliff: f.priceCliff}
	if o.PreferencePolicy != scheduling.PreferencesRespect && o.PreferencePolicy != scheduling.PreferencesIgnore {
		return o, fmt.Errorf("--preference-policy %q: use Respect or Ignore", f.preferences)
	}
	if o.Packing != scheduling.PackingKarpenter && o.Packing != scheduling.PackingCost {
		return o, fmt.Errorf("--packing %q: use Karpenter or Cost", f.packing)
	}
	if o.PriceCliff != 0 && !(o.PriceCliff > 1 && !math.IsInf(o.PriceCliff, 1)) {
		return o, fmt.Errorf("--price-cliff %g: use a ratio above 1, such as %g, or 0 to grow NodeClaims as Karpenter does", f.priceCliff, scheduling.DefaultPriceCliff)
	}
	return o, nil
}

// autoscalerFlags are the flags every command that runs the autoscaler shares.
type autoscalerFlags struct {
	dryRun, spotToSpot  bool
	batchIdle, batchMax time.Duration
	splitSaving         float64
	solve               solveFlags
}

// register adds the flags, their defaults taken from d.
func (f *autoscalerFlags) register(fs *pflag.FlagSet, d autoscaler.Options) {
	fs.BoolVar(&f.dryRun, "dry-run", d.DryRun, "decide and journal everything as \"would\", change nothing")
	fs.BoolVar(&f.spotToSpot, "spot-to-spot", d.Disruption.SpotToSpot, "let consolidation replace spot nodes by cheaper spot nodes (needs 15 cheaper types)")
	fs.Float64Var(&f.splitSaving, "split-saving", 100*d.Disruption.SplitSaving,
		"percent: let consolidation replace one node by two or more cheaper ones when together they cost at least this much less (0: never, as Karpenter)")
	fs.DurationVar(&f.batchIdle, "batch-idle-duration", d.Provisioning.BatchIdle, "a batch of pending pods closes after this long without a new one")
	fs.DurationVar(&f.batchMax, "batch-max-duration", d.Provisioning.BatchMax, "a batch of pending pods closes after this long at most")
	f.solve.register(fs, d.Provisioning.Scheduling)
}

// options checks the flags and returns the autoscaler's options.
func (f *autoscalerFlags) options() (autoscaler.Options, error) {
	o := autoscaler.DefaultOptions()
	solve, err := f.solve.options()
	if err != nil {
		return o, err
	}
	if f.batchIdle <= 0 || f.batchMax < f.batchIdle {
		return o, fmt.Errorf("--batch-idle-duration %s and --batch-max-duration %s: both positive, the max at least the idle", f.batchIdle, f.batchMax)
	}
	if !(f.splitSaving >= 0 && f.splitSaving < 100) { // NaN too
		return o, fmt.Errorf("--split-saving %g: a percentage from 0 (off) to below 100, such as 20", f.splitSaving)
	}
	o.DryRun = f.dryRun
	o.Disruption.SpotToSpot = f.spotToSpot
	o.Disruption.SplitSaving = f.splitSaving / 100
	o.Provisioning.BatchIdle, o.Provisioning.BatchMax = f.batchIdle, f.batchMax
	o.Provisioning.Scheduling, o.Disruption.Scheduling = solve, solve
	return o, nil
}
