package conformance

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/demo"
	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// BenchmarkThousandPods gives 1,000 pods of mixed shapes to each controller, each its own process
// on a fresh cluster (nodepilot's controller built from this tree) that is ready when they come:
// the time from the first pod unschedulable to the first CreateFleet and to the last pod running,
// the fleet's $/h and its ratio to the fractional optimum of the workload, the AWS calls made from the controller's start (the watching console's few
// included), and the controller's CPU seconds and peak RSS over its whole run.
// nodepilot runs a second time with --packing Cost.
func BenchmarkThousandPods(b *testing.B) {
	bin := buildNodepilot(b)
	s := scenario{"thousand", []string{"common", "thousand"}, 1000, ""}
	for _, run := range []struct{ name, controller, packing string }{
		{demo.ControllerKarpenter, demo.ControllerKarpenter, ""},
		{demo.ControllerNodepilot, demo.ControllerNodepilot, ""},
		{demo.ControllerNodepilot + "-packing-cost", demo.ControllerNodepilot, string(scheduling.PackingCost)},
	} {
		controller := run.controller
		b.Run(run.name, func(b *testing.B) {
			for range b.N {
				c := start(b, 12*time.Minute, s)
				before := totalCalls(c)
				var k *localcluster.Controller
				var err error
				if controller == demo.ControllerKarpenter {
					k, err = c.env.Cluster.StartKarpenter(c.ctx, c.env.KarpenterOptions())
				} else {
					var flags []string
					if run.packing != "" {
						flags = []string{"--packing", run.packing}
					}
					k, err = c.env.Cluster.StartNodepilot(c.ctx, bin, c.env.KarpenterOptions(), flags...)
				}
				if err != nil {
					b.Fatal(err)
				}
				c.ready(2 * time.Minute)
				c.place()
				c.waitRunning(10*time.Minute, s.pods)
				elapsed := time.Since(c.unschedulable)
				cpu, rss := usage(b, k.PID())
				b.ReportMetric(c.firstLaunch().Sub(c.unschedulable).Seconds(), "s-to-launch")
				b.ReportMetric(elapsed.Seconds(), "s-to-running")
				b.ReportMetric(c.price(), "$/h")
				b.ReportMetric(c.price()/c.optimum(), "x-optimum")
				b.ReportMetric(float64(totalCalls(c)-before), "aws-calls")
				b.ReportMetric(cpu, "cpu-s")
				b.ReportMetric(rss, "peak-rss-MiB")
				b.ReportMetric(float64(len(c.env.App.Cluster.Snapshot().NodeClaims)), "nodes")
				b.Logf("%s: %s", run.name, c.fleet().shapes())
				if err := c.env.Cluster.StopController(k); err != nil {
					b.Error(err)
				}
			}
		})
	}
}

// waitRunning waits, reading the watching console's state only, until want pods run and none
// waits.
func (c *cluster) waitRunning(timeout time.Duration, want int) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		running, pending := 0, 0
		for _, p := range c.env.App.Cluster.Snapshot().Pods {
			switch {
			case p.DeletionTimestamp != nil || pods.IsOwnedByDaemonSet(p):
			case p.Status.Phase == corev1.PodPending:
				pending++
			case p.Status.Phase == corev1.PodRunning:
				running++
			}
		}
		if running == want && pending == 0 {
			return
		}
		if time.Now().After(deadline) || c.ctx.Err() != nil {
			c.t.Fatalf("%d pods running, %d pending after %s, want %d running (logs in %s)", running, pending, timeout, want, c.env.Cluster.Dir)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// optimum is the fractional (LP) optimum of the workload's pods over the NodePool "default" at
// the emulator's prices (cost.FractionalOptimum): no fleet can cost less.
func (c *cluster) optimum() float64 {
	snap := c.env.App.Cluster.Snapshot()
	np := scheduling.FromNodePool(snap.NodePool("default"), c.env.App.InstanceTypes("default"), nil)
	var workload []*corev1.Pod
	for _, p := range snap.Pods {
		if p.Namespace == corev1.NamespaceDefault && !pods.IsOwnedByDaemonSet(p) && p.DeletionTimestamp == nil {
			workload = append(workload, p)
		}
	}
	return cost.FractionalOptimum(cost.DemandOf(workload), np)
}

func totalCalls(c *cluster) int {
	n := 0
	for _, v := range c.env.Emulator.CallCounts() {
		n += v
	}
	return n
}

// usage reads a process's CPU seconds (user and system, clock ticks of 1/100 s) and peak
// resident memory in MiB from /proc.
func usage(b *testing.B, pid int) (cpu, rssMiB float64) {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			rssMiB = kb / 1024
		}
	}
	return (utime + stime) / 100, rssMiB
}
