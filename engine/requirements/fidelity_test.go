package requirements

import (
	"slices"
	"testing"

	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

// TestIntersectsAsKarpenter asks Karpenter's scheduling package and nodepilot whether the
// requirements of 2,000 drawn cases intersect (every operator, integer bounds over words,
// deprecated keys): they must answer alike, since a pod, a NodePool and a NodeClaim meet there.
func TestIntersectsAsKarpenter(t *testing.T) {
	cases := upstream.RequirementsCases(1, 2000)
	answers := upstream.Requirements(t, cases)
	seen := map[bool]int{}
	for i, c := range cases {
		got := FromNodeSelector(c.A).Intersects(FromNodeSelector(c.B)) == nil
		seen[got]++
		if want := answers[i].Intersects; got != want {
			t.Errorf("case %d: %v and %v intersect: nodepilot %v, Karpenter %v", i, c.A, c.B, got, want)
		}
	}
	if seen[true] < 100 || seen[false] < 100 {
		t.Errorf("the cases intersect %d times and not %d times: too few of one to compare", seen[true], seen[false])
	}
}

// TestCompatibleAsKarpenter asks Karpenter's scheduling package and nodepilot whether the second
// requirements of 2,000 drawn cases are compatible with the first, undefined well-known labels
// allowed: the test the scheduler puts to a NodeClaim template and a pod.
func TestCompatibleAsKarpenter(t *testing.T) {
	wellKnown := upstream.Load(t).WellKnownLabels
	isWellKnown := func(key string) bool { return slices.Contains(wellKnown, key) }
	cases := upstream.RequirementsCases(3, 2000)
	answers := upstream.Requirements(t, cases)
	seen := map[bool]int{}
	for i, c := range cases {
		got := FromNodeSelector(c.A).Compatible(FromNodeSelector(c.B), isWellKnown) == nil
		seen[got]++
		if want := answers[i].Compatible; got != want {
			t.Errorf("case %d: %v compatible with %v: nodepilot %v, Karpenter %v", i, c.B, c.A, got, want)
		}
	}
	if seen[true] < 100 || seen[false] < 100 {
		t.Errorf("%d compatible and %d not: too few of one to compare", seen[true], seen[false])
	}
}
