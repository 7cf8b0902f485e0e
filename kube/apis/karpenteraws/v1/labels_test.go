package v1_test

import (
	"testing"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// TestWellKnownLabelsAreAllowedInNodePools keeps the karpenter.k8s.aws labels that the core
// package (and the NodePool CRD's CEL rules) allow equal to this package's well-known labels.
func TestWellKnownLabelsAreAllowedInNodePools(t *testing.T) {
	for _, key := range append(awsv1.WellKnownLabels().UnsortedList(), awsv1.LabelNodeClass) {
		if reason := karpv1.RestrictedLabelReason(key, true); reason != "" {
			t.Errorf("NodePools may not use well-known label %s: %s", key, reason)
		}
	}
	if reason := karpv1.RestrictedLabelReason(awsv1.Group+"/made-up", true); reason == "" {
		t.Error("NodePools may use an unknown karpenter.k8s.aws label")
	}
}
