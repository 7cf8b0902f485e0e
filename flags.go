package main

import (
	"cmp"
	"fmt"
	"log/slog"
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

// autoscalerFlags are the flags every command that runs the autoscaler shares.
type autoscalerFlags struct {
	dryRun, spotToSpot  bool
	batchIdle, batchMax time.Duration
	preferences         string
}

// register adds the flags, their defaults taken from d.
func (f *autoscalerFlags) register(fs *pflag.FlagSet, d autoscaler.Options) {
	fs.BoolVar(&f.dryRun, "dry-run", d.DryRun, "decide and journal everything as \"would\", change nothing")
	fs.BoolVar(&f.spotToSpot, "spot-to-spot", d.Disruption.SpotToSpot, "let consolidation replace spot nodes by cheaper spot nodes (needs 15 cheaper types)")
	fs.DurationVar(&f.batchIdle, "batch-idle-duration", d.Provisioning.BatchIdle, "a batch of pending pods closes after this long without a new one")
	fs.DurationVar(&f.batchMax, "batch-max-duration", d.Provisioning.BatchMax, "a batch of pending pods closes after this long at most")
	fs.StringVar(&f.preferences, "preference-policy", string(d.Provisioning.PreferencePolicy), "Respect or Ignore pods' soft constraints")
}

// options checks the flags and returns the autoscaler's options.
func (f *autoscalerFlags) options() (autoscaler.Options, error) {
	o := autoscaler.DefaultOptions()
	policy := scheduling.PreferencePolicy(f.preferences)
	if policy != scheduling.PreferencesRespect && policy != scheduling.PreferencesIgnore {
		return o, fmt.Errorf("--preference-policy %q: use Respect or Ignore", f.preferences)
	}
	if f.batchIdle <= 0 || f.batchMax < f.batchIdle {
		return o, fmt.Errorf("--batch-idle-duration %s and --batch-max-duration %s: both positive, the max at least the idle", f.batchIdle, f.batchMax)
	}
	o.DryRun = f.dryRun
	o.Disruption.SpotToSpot = f.spotToSpot
	o.Provisioning.BatchIdle, o.Provisioning.BatchMax = f.batchIdle, f.batchMax
	o.Provisioning.PreferencePolicy, o.Disruption.PreferencePolicy = policy, policy
	return o, nil
}
