package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// autoscalerFlags are the flags every command that runs the autoscaler shares.
type autoscalerFlags struct {
	dryRun, spotToSpot  bool
	batchIdle, batchMax time.Duration
	preferences         string
}

func (f *autoscalerFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.dryRun, "dry-run", false, "decide and journal everything as \"would\", change nothing")
	fs.BoolVar(&f.spotToSpot, "spot-to-spot", false, "let consolidation replace spot nodes by cheaper spot nodes (needs 15 cheaper types)")
	fs.DurationVar(&f.batchIdle, "batch-idle-duration", time.Second, "a batch of pending pods closes after this long without a new one")
	fs.DurationVar(&f.batchMax, "batch-max-duration", 10*time.Second, "a batch of pending pods closes after this long at most")
	fs.StringVar(&f.preferences, "preference-policy", string(scheduling.PreferencesRespect), "Respect or Ignore pods' soft constraints")
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
