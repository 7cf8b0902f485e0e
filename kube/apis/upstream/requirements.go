package upstream

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// RequirementsCase is one question for Karpenter's scheduling requirements: do A and B
// intersect, is B compatible with A, and is a NodeClaim labelled Labels drifted from a NodePool
// requiring B. hack/fidelity declares the same JSON shape: the two modules cannot share a type.
type RequirementsCase struct {
	A      []corev1.NodeSelectorRequirement `json:"a"`
	B      []corev1.NodeSelectorRequirement `json:"b"`
	Labels map[string]string                `json:"labels"`
}

// RequirementsAnswer is Karpenter's answer to a RequirementsCase: A and B intersect (its
// Requirements.Intersects), B is compatible with A with undefined well-known labels allowed (its
// Requirements.Compatible, as the scheduler asks of a NodeClaim template and a pod), and the
// NodeClaim is drifted (its drift controller's requirements check).
type RequirementsAnswer struct {
	Intersects bool `json:"intersects"`
	Compatible bool `json:"compatible"`
	Drifted    bool `json:"drifted"`
}

// Requirements answers cases with Karpenter's scheduling package.
func Requirements(t testing.TB, cases []RequirementsCase) []RequirementsAnswer {
	t.Helper()
	file := filepath.Join(t.TempDir(), "cases.json")
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var answers []RequirementsAnswer
	if err := json.Unmarshal(runFidelity(t, "requirements", file), &answers); err != nil || len(answers) != len(cases) {
		t.Fatalf("fidelity requirements: %d answers to %d cases: %v", len(answers), len(cases), err)
	}
	return answers
}

// RequirementsCases are n cases drawn from seed over few keys and values, so that requirements
// and labels often meet on a key: every operator, integer and other values under Gt and Lt, a
// key under its deprecated name beside its current one, labels present, absent and different.
func RequirementsCases(seed int64, n int) []RequirementsCase {
	rng := rand.New(rand.NewSource(seed))
	keys := []string{"team", "tier", corev1.LabelTopologyZone, corev1.LabelFailureDomainBetaZone, "karpenter.sh/capacity-type"}
	values := []string{"a", "b", "1", "5", "10"}
	ops := []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
		corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt}
	reqs := func() []corev1.NodeSelectorRequirement {
		out := make([]corev1.NodeSelectorRequirement, rng.Intn(4))
		for i := range out {
			r := corev1.NodeSelectorRequirement{Key: keys[rng.Intn(len(keys))], Operator: ops[rng.Intn(len(ops))]}
			switch r.Operator {
			case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
				for _, j := range rng.Perm(len(values))[:1+rng.Intn(3)] {
					r.Values = append(r.Values, values[j])
				}
			case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
				r.Values = []string{values[2+rng.Intn(3)]} // the integers
			}
			out[i] = r
		}
		return out
	}
	cases := make([]RequirementsCase, n)
	for i := range cases {
		labels := map[string]string{}
		for _, k := range keys {
			if rng.Intn(2) == 0 {
				labels[k] = values[rng.Intn(len(values))]
			}
		}
		cases[i] = RequirementsCase{A: reqs(), B: reqs(), Labels: labels}
	}
	return cases
}
