package demo

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// latencyPool is a NodePool of its own for the benchmark's pods: tainted, so that nothing else
// lands on its nodes, and on-demand, so that each launch is one plain CreateFleet.
const latencyPool = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: latency
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      taints: [{key: bench, value: latency, effect: NoSchedule}]
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
`

// BenchmarkProvisioningLatency measures, on the real control plane and the emulator with the
// demo's seed workloads running, the time from a pod becoming Unschedulable (kube-scheduler's
// PodScheduled=False, seen through a watch) to the CreateFleet call that launches its node (the
// instance's launch time in the emulator). Each pod needs a node of its own: it selects the
// benchmark's NodePool and keeps away from the other benchmark pods by hostname. Each pod runs
// before the next is created, outside the timer. Reported: the median and the 90th percentile,
// next to the batch idle window they include.
func BenchmarkProvisioningLatency(b *testing.B) {
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	opts := DefaultOptions()
	opts.Dir = b.TempDir()
	env, err := Start(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	done := make(chan error, 1)
	go func() { done <- env.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitFor(b, ctx, env, 3*time.Minute, "the seed workloads running", func(s *state.Snapshot) error {
		return running(s, "inflate-", 5, "api-", 3)
	})
	var np karpv1.NodePool
	if err := yaml.UnmarshalStrict([]byte(latencyPool), &np); err != nil {
		b.Fatal(err)
	}
	if _, err := env.App.Clients.NodePools.Create(ctx, &np); err != nil {
		b.Fatal(err)
	}
	pods := env.App.Clients.Kube.CoreV1().Pods("default")
	w, err := pods.Watch(ctx, metav1.ListOptions{LabelSelector: "bench=latency"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	launched := map[string]bool{}
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		name := fmt.Sprintf("latency-%d-%d", b.N, i)
		if _, err := pods.Create(ctx, latencyPod(name), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		unschedulable := waitPod(b, w, name, func(p *corev1.Pod) bool {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
					return true
				}
			}
			return false
		})
		launch := waitLaunch(b, ctx, env, launched)
		latencies = append(latencies, launch.Sub(unschedulable))
		b.StopTimer()
		waitPod(b, w, name, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(latencies[len(latencies)*9/10].Milliseconds()), "p90-ms")
	b.ReportMetric(float64(opts.Autoscaler.Provisioning.BatchIdle.Milliseconds()), "idle-window-ms")
}

func latencyPod(name string) *corev1.Pod {
	labels := map[string]string{"bench": "latency"}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{karpv1.NodePoolLabelKey: "latency"},
			Tolerations:  []corev1.Toleration{{Key: "bench", Operator: corev1.TolerationOpEqual, Value: "latency", Effect: corev1.TaintEffectNoSchedule}},
			Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: labels}}}}},
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}},
		},
	}
}

// waitPod returns when the watch shows pod name in the state cond wants, with the time it saw it.
func waitPod(b *testing.B, w watch.Interface, name string, cond func(*corev1.Pod) bool) time.Time {
	b.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				b.Fatal("the pod watch ended")
			}
			if p, isPod := ev.Object.(*corev1.Pod); isPod && p.Name == name && cond(p) {
				return time.Now()
			}
		case <-timeout:
			b.Fatalf("pod %s did not reach the awaited state within 2 minutes", name)
		}
	}
}

// waitLaunch returns the launch time of the first instance of the benchmark's NodePool not seen
// before.
func waitLaunch(b *testing.B, ctx context.Context, env *Environment, seen map[string]bool) time.Time {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, inst := range env.Emulator.Instances() {
			if inst.Tags[karpv1.NodePoolLabelKey] == "latency" && !seen[inst.ID] {
				seen[inst.ID] = true
				return inst.LaunchTime
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.Fatal("no instance launched for the benchmark's pod within a minute")
	return time.Time{}
}
