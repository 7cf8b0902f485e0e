package localcluster

import (
	_ "embed" // for kwokStages
	"fmt"
	"os"
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

// writeKwokStages writes the stage configuration kwok reads to path.
func writeKwokStages(path string) error {
	if err := os.WriteFile(path, []byte(kwokStages), 0o644); err != nil {
		return fmt.Errorf("localcluster: write kwok stages %s: %w", path, err)
	}
	return nil
}
