package render

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/scheduling"
)

// ExplainPod is the explainer's report on a pod: per NodePool, why it cannot take the pod, how
// many instance types each criterion ruled out, and what would fix it. pe is nil when the
// explainer found nothing to say (the pod fits somewhere).
func ExplainPod(p *corev1.Pod, pe *scheduling.PodError, now time.Time) Text {
	var w Writer
	cpu, mem := PodRequests(p)
	w.Add("Pod ", ToneHeading).Add(p.Namespace+"/"+p.Name, ToneHeading).End()
	w.Field(2, "requests", fmt.Sprintf("cpu %s, memory %s", CPU(cpu), Mem(mem)))
	w.Field(2, "age", Age(now, p.CreationTimestamp.Time))
	if p.Spec.NodeName != "" {
		w.Field(2, "node", p.Spec.NodeName)
	}
	w.Blank()
	switch {
	case !pods.IsProvisionable(p) && p.Spec.NodeName != "":
		w.Para(0, "It is not pending: it is bound to node "+p.Spec.NodeName+".", ToneNormal)
		return w.Text()
	case pe == nil || len(pe.Reasons) == 0:
		w.Para(0, "The explainer finds room for it: a NodeClaim is being planned or launched for it.", ToneAdded)
		return w.Text()
	}
	w.Heading("Why no NodePool can take it")
	for _, r := range pe.Reasons {
		w.Blank()
		pool := r.NodePool
		if pool == "" {
			pool = "(every NodePool)"
		}
		w.Add("NodePool ", ToneKey).Add(pool, ToneHeading).Add("  ", ToneInherit).Add(r.Code, TonePending).End()
		w.Para(2, r.Message, ToneNormal)
		if r.Hint != "" {
			w.Add("  ", ToneInherit).Add("fix", ToneKey).Add(":", ToneColon).Add(" "+r.Hint, ToneAdded).End()
		}
		if len(r.Excluded) > 0 {
			w.Para(2, "instance types ruled out:", ToneKey)
			for _, k := range excludedOrder(r.Excluded) {
				w.Add(fmt.Sprintf("    %6d  ", r.Excluded[k]), ToneValue).Add(k, ToneNormal).End()
			}
		}
	}
	return w.Text()
}

// excludedOrder sorts criteria by count, largest first.
func excludedOrder(m map[string]int) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) })
	return keys
}

// PendingWhy summarises a pod's reasons in one line: "default: InsufficientResources; gpu:
// TaintNotTolerated", and the first hint.
func PendingWhy(pe *scheduling.PodError) (why, fix string) {
	parts := make([]string, 0, len(pe.Reasons))
	for _, r := range pe.Reasons {
		if r.NodePool == "" {
			parts = append(parts, r.Code)
		} else {
			parts = append(parts, r.NodePool+": "+r.Code)
		}
		if fix == "" {
			fix = r.Hint
		}
	}
	return strings.Join(parts, "; "), fix
}
