package requirements

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const (
	in     = corev1.NodeSelectorOpIn
	notIn  = corev1.NodeSelectorOpNotIn
	exists = corev1.NodeSelectorOpExists
	dne    = corev1.NodeSelectorOpDoesNotExist
	gt     = corev1.NodeSelectorOpGt
	lt     = corev1.NodeSelectorOpLt
)

func TestHas(t *testing.T) {
	tests := []struct {
		name  string
		req   *Requirement
		value string
		want  bool
	}{
		{"in has listed", New("k", in, "a", "b"), "b", true},
		{"in lacks other", New("k", in, "a", "b"), "c", false},
		{"notin lacks listed", New("k", notIn, "a"), "a", false},
		{"notin has other", New("k", notIn, "a"), "z", true},
		{"exists has any", New("k", exists), "anything", true},
		{"dne has none", New("k", dne), "", false},
		{"gt above", New("k", gt, "5"), "6", true},
		{"gt equal", New("k", gt, "5"), "5", false},
		{"gt not integer", New("k", gt, "5"), "six", false},
		{"gte equal", New("k", OpGte, "5"), "5", true},
		{"gte below", New("k", OpGte, "5"), "4", false},
		{"lt below", New("k", lt, "5"), "4", true},
		{"lte equal", New("k", OpLte, "5"), "5", true},
		{"lte above", New("k", OpLte, "5"), "6", false},
		{"malformed gt allows nothing", New("k", gt, "five"), "6", false},
		{"gt with two values allows nothing", New("k", gt, "1", "2"), "6", false},
		{"unknown operator allows nothing", New("k", "Within", "1"), "1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.Has(tt.value); got != tt.want {
				t.Errorf("%s Has(%q) = %v, want %v", tt.req, tt.value, got, tt.want)
			}
		})
	}
}

func TestIntersection(t *testing.T) {
	tests := []struct {
		name string
		a, b *Requirement
		want string
	}{
		{"in and in", New("k", in, "a", "b", "c"), New("k", in, "b", "c", "d"), "k In [b c]"},
		{"in and notin", New("k", in, "a", "b"), New("k", notIn, "a"), "k In [b]"},
		{"notin and in", New("k", notIn, "a"), New("k", in, "a", "b"), "k In [b]"},
		{"notin and notin", New("k", notIn, "a"), New("k", notIn, "b"), "k NotIn [a b]"},
		{"exists and in", New("k", exists), New("k", in, "x"), "k In [x]"},
		{"in and dne", New("k", in, "x"), New("k", dne), "k DoesNotExist"},
		{"gt and in filters", New("k", gt, "5"), New("k", in, "3", "6", "7", "x"), "k In [6 7]"},
		{"gt and lt", New("k", gt, "2"), New("k", lt, "6"), "k Gt 2 and Lt 6"},
		{"gt and lt disjoint", New("k", gt, "5"), New("k", lt, "6"), "k DoesNotExist"},
		{"gte and lte one value", New("k", OpGte, "5"), New("k", OpLte, "5"), "k Gt 4 and Lt 6"},
		{"tighter gt wins", New("k", gt, "2"), New("k", gt, "7"), "k Gt 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Intersection(tt.b).String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIntersects(t *testing.T) {
	tests := []struct {
		name string
		a, b *Requirement
		want bool
	}{
		{"overlapping in", New("k", in, "a", "b"), New("k", in, "b"), true},
		{"disjoint in", New("k", in, "a"), New("k", in, "b"), false},
		{"in vs notin same", New("k", in, "a"), New("k", notIn, "a"), false},
		{"in vs notin other", New("k", in, "a"), New("k", notIn, "b"), true},
		{"two notins", New("k", notIn, "a"), New("k", notIn, "a"), true},
		{"dne vs notin both forbid", New("k", dne), New("k", notIn, "a"), true},
		{"dne vs dne", New("k", dne), New("k", dne), true},
		{"in vs dne", New("k", in, "a"), New("k", dne), false},
		{"dne vs exists", New("k", dne), New("k", exists), false},
		{"gt vs in above", New("k", gt, "5"), New("k", in, "8"), true},
		{"gt vs in below", New("k", gt, "5"), New("k", in, "4"), false},
		{"gt vs lt disjoint", New("k", gt, "5"), New("k", lt, "3"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Intersects(tt.b); got != tt.want {
				t.Errorf("%s ∩ %s: got %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := tt.b.Intersects(tt.a); got != tt.want {
				t.Errorf("%s ∩ %s (swapped): got %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestCompatible(t *testing.T) {
	wellKnown := func(k string) bool { return k == "topology.kubernetes.io/zone" }
	pool := Of(New("karpenter.sh/capacity-type", in, "on-demand"), New("team", in, "a"))
	tests := []struct {
		name    string
		pod     Requirements
		wantKey string
	}{
		{"nothing asked", Requirements{}, ""},
		{"matching custom label", Of(New("team", in, "a")), ""},
		{"conflicting custom label", Of(New("team", in, "b")), "team"},
		{"undefined custom label", Of(New("gpu", in, "true")), "gpu"},
		{"undefined label asked absent", Of(New("gpu", dne)), ""},
		{"undefined label NotIn", Of(New("gpu", notIn, "true")), ""},
		{"undefined well-known label", Of(New("topology.kubernetes.io/zone", in, "us-east-1a")), ""},
		{"capacity type conflict", Of(New("karpenter.sh/capacity-type", in, "spot")), "karpenter.sh/capacity-type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := pool.Compatible(tt.pod, wellKnown)
			got := ""
			if c != nil {
				got = c.Key
				if c.Error() == "" {
					t.Error("conflict without a message")
				}
			}
			if got != tt.wantKey {
				t.Errorf("conflict on %q, want %q (%v)", got, tt.wantKey, c)
			}
		})
	}
}

func TestAddKeepsReceiver(t *testing.T) {
	base := Of(New("a", in, "1", "2"))
	narrowed := base.Add(New("a", in, "2"), New("b", exists))
	if got := base.String(); got != "a In [1 2]" {
		t.Errorf("receiver changed to %q", got)
	}
	if got := narrowed.String(); got != "a In [2], b Exists" {
		t.Errorf("narrowed = %q", got)
	}
	if got := narrowed.Labels(); len(got) != 1 || got["a"] != "2" {
		t.Errorf("labels = %v", got)
	}
}

func TestMinValuesSurvivesIntersection(t *testing.T) {
	three := 3
	a := New("family", exists).WithMinValues(&three)
	got := a.Intersection(New("family", in, "c6i", "m6i", "r6i", "c7i"))
	if got.MinValues == nil || *got.MinValues != 3 || got.Len() != 4 {
		t.Errorf("got %s", got)
	}
}

func TestImplies(t *testing.T) {
	pinned := Of(New("zone", in, "a"), New("arch", in, "amd64"))
	tests := []struct {
		name string
		o    Requirements
		want bool
	}{
		{"nothing", Requirements{}, true},
		{"same value", Of(New("zone", in, "a")), true},
		{"wider", Of(New("zone", in, "a", "b")), true},
		{"not in other", Of(New("zone", notIn, "b")), true},
		{"other value", Of(New("zone", in, "b")), false},
		{"excluded", Of(New("zone", notIn, "a")), false},
		{"unknown key", Of(New("team", in, "x")), false},
		{"exists", Of(New("arch", exists)), true},
	}
	for _, tt := range tests {
		if got := pinned.Implies(tt.o); got != tt.want {
			t.Errorf("%s: Implies(%s) = %v, want %v", tt.name, tt.o, got, tt.want)
		}
		if tt.want && pinned.Merge(tt.o).String() != pinned.String() {
			t.Errorf("%s: implied, yet merging changes %s to %s", tt.name, pinned, pinned.Merge(tt.o))
		}
	}
}

func TestNodeSelectorRoundTrip(t *testing.T) {
	tests := []*Requirement{
		New("k", in, "a", "b"), New("k", notIn, "a"), New("k", exists), New("k", dne),
		New("k", gt, "4"), New("k", OpLte, "9"), New("k", gt, "2").Intersection(New("k", lt, "6")),
		New("k", gt, "2").Intersection(New("k", notIn, "4")),
	}
	for _, r := range tests {
		back := FromNodeSelector(r.NodeSelector()).Get("k")
		for _, v := range []string{"a", "b", "c", "", "1", "2", "3", "4", "5", "6", "9", "10"} {
			if back.Has(v) != r.Has(v) {
				t.Errorf("%s written as %v reads back as %s: Has(%q) differs", r, r.NodeSelector(), back, v)
			}
		}
	}
}

// TestDeprecatedKeys: the deprecated label keys are read as their current names, in requirements
// and in labels; labels carrying both forms agree with themselves.
func TestDeprecatedKeys(t *testing.T) {
	for _, tc := range []struct{ deprecated, current string }{
		{"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"},
		{"failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"},
		{"beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type"},
		{"beta.kubernetes.io/arch", "kubernetes.io/arch"},
		{"beta.kubernetes.io/os", "kubernetes.io/os"},
	} {
		t.Run(tc.deprecated, func(t *testing.T) {
			if r := New(tc.deprecated, in, "a"); r.Key != tc.current {
				t.Errorf("New(%s).Key = %s, want %s", tc.deprecated, r.Key, tc.current)
			}
			selector := FromLabels(map[string]string{tc.deprecated: "a"})
			if !selector.Has(tc.current) || selector.Has(tc.deprecated) {
				t.Errorf("a selector on %s: %v", tc.deprecated, selector)
			}
			node := FromLabels(map[string]string{tc.deprecated: "a", tc.current: "a", "other": "x"})
			if c := node.Intersects(Of(New(tc.current, in, "a"))); c != nil {
				t.Errorf("a node labelled with both forms does not match its value: %v", c)
			}
			if c := node.Intersects(Of(New(tc.deprecated, in, "b"))); c == nil {
				t.Error("a node labelled a matches a selector for b on the deprecated key")
			}
		})
	}
}

func TestLabelValue(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    *Requirement
		want string
	}{
		{"one value", New("team", in, "a"), "a"},
		{"the first of several", New("team", in, "b", "a"), "a"},
		{"In within bounds", New("n", in, "1", "7").Intersection(New("n", gt, "5")), "7"},
		{"Exists", New("team", exists), "0"},
		{"NotIn skips what it excludes", New("n", notIn, "0", "1", "3"), "2"},
		{"Gt", New("gen", gt, "5"), "6"},
		{"Gt below zero", New("n", gt, "-3"), "0"},
		{"Lt at or below zero", New("n", lt, "-2"), "-3"},
		{"between bounds", New("n", gt, "5").Intersection(New("n", lt, "7")), "6"},
		{"bounds nothing fits", New("n", gt, "5").Intersection(New("n", lt, "6")), ""},
		{"bounds whose only value is excluded", New("n", gt, "5").Intersection(New("n", lt, "7")).Intersection(New("n", notIn, "6")), ""},
		{"DoesNotExist", New("team", dne), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.r.LabelValue()
			if got != tt.want {
				t.Errorf("%s: LabelValue() = %q, want %q", tt.r, got, tt.want)
			}
			if got != "" && !tt.r.Has(got) {
				t.Errorf("%s does not allow its own label value %q", tt.r, got)
			}
		})
	}
}
