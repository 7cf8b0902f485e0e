package main

import (
	"encoding/json"
	"os"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// RequirementsCase is one question for Karpenter's scheduling requirements: do A and B
// intersect, is B compatible with A (undefined well-known labels allowed), and would a NodeClaim
// labelled Labels be drifted from a NodePool requiring B.
type RequirementsCase struct {
	A      []corev1.NodeSelectorRequirement              `json:"a"`
	B      []karpv1.NodeSelectorRequirementWithMinValues `json:"b"`
	Labels map[string]string                             `json:"labels"`
}

// RequirementsAnswer is Karpenter's answer to a RequirementsCase.
type RequirementsAnswer struct {
	// Intersects: NewNodeSelectorRequirements(A).Intersects(B) finds no conflict.
	Intersects bool `json:"intersects"`
	// Compatible: NewNodeSelectorRequirements(A).Compatible(B) allowing undefined well-known
	// labels, as the scheduler asks of a NodeClaim template and a pod.
	Compatible bool `json:"compatible"`
	// Drifted: the NodeClaim drift controller's requirements check, the NodeClaim's labels
	// against the NodePool's requirements with no label allowed undefined.
	Drifted bool `json:"drifted"`
}

// answerRequirements reads cases as JSON from file and answers each with Karpenter's code.
func answerRequirements(file string) ([]RequirementsAnswer, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var cases []RequirementsCase
	if err := json.Unmarshal(data, &cases); err != nil {
		return nil, err
	}
	out := make([]RequirementsAnswer, len(cases))
	for i, c := range cases {
		b := scheduling.NewNodeSelectorRequirementsWithMinValues(c.B...)
		out[i] = RequirementsAnswer{
			Intersects: scheduling.NewNodeSelectorRequirements(c.A...).Intersects(b) == nil,
			Compatible: scheduling.NewNodeSelectorRequirements(c.A...).Compatible(b, scheduling.AllowUndefinedWellKnownLabels) == nil,
			Drifted:    scheduling.NewLabelRequirements(c.Labels).Compatible(b) != nil,
		}
	}
	return out, nil
}
