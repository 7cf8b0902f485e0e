package localcluster

import (
	_ "embed" // for kwokStages and kwokMetrics
	"fmt"
	"os"
	"time"
)

// The label that makes kwok play the kubelet of a Node: kwok keeps such a node Ready, renews its
// lease and runs (fakes) the pods bound to it. RegisterNodes sets it; a test that wants a kwok node
// of its own sets it too.
const (
	KwokNodeLabel = "kwok.x-k8s.io/node"
	KwokNodeValue = "fake"
)

// kwokStages is kwok v0.8's own stage configuration (its kustomize/stage/{node/fast,
// node/heartbeat-with-lease,pod/fast} files concatenated): nodes turn Ready at once, pods go Running
// at once, Job pods complete, deleted pods go away. kwok exits with "no stages found" without it.
//
//go:embed kwok-stages.yaml
var kwokStages string

// kwokMetrics is kwok's resource metrics endpoint and the usage it reports for pods.
//
//go:embed kwok-metrics.yaml
var kwokMetrics string

// The pod annotations whose quantities kwok reports as each of the pod's containers' CPU and
// memory use (what metrics-server then serves): a workload's simulated load.
const (
	UsageCPUAnnotation    = "kwok.x-k8s.io/usage-cpu"
	UsageMemoryAnnotation = "kwok.x-k8s.io/usage-memory"
)

// resourceMetricsPathAnnotation tells metrics-server where a node's kubelet serves its resource
// metrics: kwok serves every node's under a path of its own.
const resourceMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"

// resourceMetricsPath is that path for the node name.
func resourceMetricsPath(node string) string { return "/metrics/nodes/" + node + "/metrics/resource" }

// writeKwokConfig writes the stage, metrics, logs and exec configuration kwok reads.
func writeKwokConfig(l layout) error {
	for path, content := range map[string]string{l.kwokConfig: kwokStages, l.kwokMetrics: kwokMetrics} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return fmt.Errorf("localcluster: write kwok configuration %s: %w", path, err)
		}
	}
	return writeKwokStreams(l, time.Now())
}
