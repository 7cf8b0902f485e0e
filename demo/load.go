package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// The simulated load rises and falls over loadCycle (the seed's KEDA cron scales every 15
// minutes), each Deployment at a phase of its own; loadPeriod is how often the pods' usage
// annotations, which kwok reports, are rewritten.
const (
	loadCycle  = 15 * time.Minute
	loadPeriod = 30 * time.Second
)

// loadWave is where deployment's load stands at t, from -1 to 1.
func loadWave(deployment string, t time.Time) float64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(deployment))
	phase := float64(h.Sum32()%360) / 360 * 2 * math.Pi
	return math.Sin(2*math.Pi*float64(t.UnixNano()%int64(loadCycle))/float64(loadCycle) + phase)
}

// loadShare is the share of its requests a pod of deployment uses at t: CPU between 15% and 75%,
// memory between 50% and 70% (memory moves less than CPU in most services).
func loadShare(deployment string, t time.Time) (cpu, memory float64) {
	w := loadWave(deployment, t)
	return 0.45 + 0.30*w, 0.60 + 0.10*w
}

// scaledShare is the CPU share of its request each of running pods uses when a
// HorizontalPodAutoscaler keeping CPU at target (a share of requests) between 1 and maxReplicas
// scales deployment: they split a total load that needs between a tenth of maxReplicas and all of
// them at the target, so the HPA has something to follow.
func scaledShare(deployment string, t time.Time, target float64, maxReplicas, running int) float64 {
	demand := (0.55 + 0.45*loadWave(deployment, t)) * float64(maxReplicas) * target
	return demand / float64(max(running, 1))
}

// usageAnnotations are a pod's usage annotations for shares of its containers' requests (the
// first container's: kwok reports the pod's annotations for each container). A pod without
// requests gets none.
func usageAnnotations(p *corev1.Pod, cpuShare, memShare float64) map[string]string {
	if len(p.Spec.Containers) == 0 {
		return nil
	}
	req := p.Spec.Containers[0].Resources.Requests
	out := map[string]string{}
	if cpu, ok := req[corev1.ResourceCPU]; ok {
		out[localcluster.UsageCPUAnnotation] = resource.NewMilliQuantity(int64(float64(cpu.MilliValue())*cpuShare), resource.DecimalSI).String()
	}
	if mem, ok := req[corev1.ResourceMemory]; ok {
		// Whole MiB, as kubectl top shows memory.
		out[localcluster.UsageMemoryAnnotation] = resource.NewQuantity(int64(mem.AsApproximateFloat64()*memShare)&^(1<<20-1), resource.BinarySI).String()
	}
	return out
}

// runLoad rewrites the usage of the running pods of the demo's Deployments every loadPeriod
// until ctx ends. A failed write is logged and tried again next period.
func (e *Environment) runLoad(ctx context.Context) {
	ticker := time.NewTicker(loadPeriod)
	defer ticker.Stop()
	clk := e.opts.LoadClock
	if clk == nil {
		clk = clock.RealClock{}
	}
	seen := map[string]int32{}
	for {
		if targets, err := e.cpuTargets(ctx, seen); err != nil {
			if ctx.Err() == nil {
				e.opts.Logger.Warn("simulated load", "err", err)
			}
		} else {
			for _, d := range e.Deployments {
				if err := e.applyLoad(ctx, d, clk.Now(), targets[d]); err != nil && ctx.Err() == nil {
					e.opts.Logger.Warn("simulated load", "deployment", d, "err", err)
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// applyLoad sets the usage annotations of the running pods of deployment ("namespace/name"),
// whose pods split one load when an HPA scales it on CPU (target.maxReplicas > 0).
func (e *Environment) applyLoad(ctx context.Context, deployment string, now time.Time, target cpuTarget) error {
	ns, name, _ := strings.Cut(deployment, "/")
	d, err := e.clients.Kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return fmt.Errorf("deployment %s: %w", deployment, err)
	}
	pods, err := e.clients.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return err
	}
	var running []*corev1.Pod
	for i := range pods.Items {
		if p := &pods.Items[i]; p.Status.Phase == corev1.PodRunning {
			running = append(running, p)
		}
	}
	cpu, mem := loadShare(deployment, now)
	if target.maxReplicas > 0 {
		cpu = scaledShare(deployment, now, target.utilization, target.maxReplicas, len(running))
	}
	for _, p := range running {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": usageAnnotations(p, cpu, mem)}})
		if err != nil {
			return err
		}
		if _, err := e.clients.Kube.CoreV1().Pods(ns).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("pod %s/%s: %w", ns, p.Name, err)
		}
	}
	return nil
}

// cpuTarget is what a HorizontalPodAutoscaler scaling on CPU utilization keeps: utilization (a
// share of requests) with at most maxReplicas.
type cpuTarget struct {
	utilization float64
	maxReplicas int
}

// cpuTargets lists the HorizontalPodAutoscalers once and returns, per Deployment they scale
// ("namespace/name"), their CPU target. It journals each HPA whose desired replicas changed since
// seen (by "namespace/name"), which it updates.
func (e *Environment) cpuTargets(ctx context.Context, seen map[string]int32) (map[string]cpuTarget, error) {
	hpas, err := e.clients.Kube.AutoscalingV2().HorizontalPodAutoscalers(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing horizontalpodautoscalers: %w", err)
	}
	out := map[string]cpuTarget{}
	for i := range hpas.Items {
		e.narrateHPA(&hpas.Items[i], seen)
	}
	for _, h := range hpas.Items {
		if h.Spec.ScaleTargetRef.Kind != "Deployment" {
			continue
		}
		for _, m := range h.Spec.Metrics {
			if r := m.Resource; m.Type == autoscalingv2.ResourceMetricSourceType && r != nil && r.Name == corev1.ResourceCPU &&
				r.Target.Type == autoscalingv2.UtilizationMetricType && r.Target.AverageUtilization != nil {
				out[h.Namespace+"/"+h.Spec.ScaleTargetRef.Name] = cpuTarget{float64(*r.Target.AverageUtilization) / 100, int(h.Spec.MaxReplicas)}
			}
		}
	}
	return out, nil
}

// narrateHPA journals an HPA's change of desired replicas since seen, with the CPU use it
// scaled on: what the pending pods, or the emptied nodes, that follow come from.
func (e *Environment) narrateHPA(h *autoscalingv2.HorizontalPodAutoscaler, seen map[string]int32) {
	key := h.Namespace + "/" + h.Name
	was, known := seen[key]
	now := h.Status.DesiredReplicas
	seen[key] = now
	if !known || was == now || now == 0 {
		return
	}
	why := "its metrics"
	for _, m := range h.Status.CurrentMetrics {
		if r := m.Resource; m.Type == autoscalingv2.ResourceMetricSourceType && r != nil && r.Current.AverageUtilization != nil {
			why = fmt.Sprintf("%s at %d%% of requests", r.Name, *r.Current.AverageUtilization)
		}
	}
	for _, m := range h.Spec.Metrics {
		if r := m.Resource; m.Type == autoscalingv2.ResourceMetricSourceType && r != nil && r.Target.AverageUtilization != nil {
			why += fmt.Sprintf(", target %d%%", *r.Target.AverageUtilization)
		}
	}
	e.App.Journal.Record(journal.Entry{Time: time.Now(), Kind: journal.KindWorkload, Reason: journal.ReasonHorizontalPodAutoscaler,
		Message: fmt.Sprintf("HorizontalPodAutoscaler %s scales %s %s from %d to %d replicas: %s", key, h.Spec.ScaleTargetRef.Kind,
			h.Spec.ScaleTargetRef.Name, was, now, why)})
}
