package provisioning

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
)

// ExplainPod places one pod as a provisioning pass would on snap (existing nodes first, then
// each NodePool) and returns the explainer's report when it fits nowhere, or nil when it fits.
// The console's explain runs it; it changes nothing.
func ExplainPod(ctx context.Context, cloud cloudprovider.CloudProvider, snap *state.Snapshot, pod *corev1.Pod, opts Options) *scheduling.PodError {
	cat := LoadCatalog(ctx, cloud, snap)
	r := scheduling.Solve(Problem(snap, cat, []*corev1.Pod{pod}, opts.Scheduling, opts.WellKnownLabels, nil))
	if len(r.Unschedulable) == 0 {
		return nil
	}
	return r.Unschedulable[0]
}
