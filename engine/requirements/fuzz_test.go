package requirements

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// FuzzIntersection checks the algebra's core law on arbitrary requirements: a value is allowed by
// the intersection exactly when both requirements allow it, and Intersects agrees.
func FuzzIntersection(f *testing.F) {
	f.Add(uint8(0), "a,b", uint8(1), "b", "b")
	f.Add(uint8(4), "5", uint8(5), "9", "7")
	f.Add(uint8(6), "3", uint8(7), "3", "3")
	f.Add(uint8(2), "", uint8(3), "", "x")
	ops := []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
		corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, OpGte, OpLte}
	f.Fuzz(func(t *testing.T, opA uint8, valsA string, opB uint8, valsB string, probe string) {
		a := New("k", ops[int(opA)%len(ops)], split(valsA)...)
		b := New("k", ops[int(opB)%len(ops)], split(valsB)...)
		both := a.Intersection(b)
		for _, v := range append(append(split(valsA), split(valsB)...), probe, "0", "5", "100") {
			if got, want := both.Has(v), a.Has(v) && b.Has(v); got != want {
				t.Fatalf("(%s) ∩ (%s) = %s: Has(%q) = %v, want %v", a, b, both, v, got, want)
			}
			if a.Has(v) && b.Has(v) && !a.Intersects(b) {
				t.Fatalf("(%s) and (%s) both allow %q but do not intersect", a, b, v)
			}
		}
		_ = both.String()
	})
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
