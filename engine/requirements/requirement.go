package requirements

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Operators beyond corev1's: Karpenter v1 accepts inclusive integer bounds too.
const (
	OpGte corev1.NodeSelectorOperator = "Gte"
	OpLte corev1.NodeSelectorOperator = "Lte"
)

// Requirement is the set of values a label may take. A complement requirement allows every value
// except those listed (NotIn, Exists); a plain one allows only those listed (In, DoesNotExist).
// Integer bounds (Gt, Lt, Gte, Lte) further restrict the allowed values to integers in range.
// The zero value is DoesNotExist for an empty key. Requirements are immutable once built.
type Requirement struct {
	Key        string
	complement bool
	values     []string // sorted, without duplicates
	hasGT      bool
	gt         int64 // values must be > gt when hasGT
	hasLT      bool
	lt         int64 // values must be < lt when hasLT
	// MinValues is the least number of distinct values a NodeClaim's instance types must keep for
	// this key (nil when not set).
	MinValues *int
}

// normalizedKeys maps deprecated label keys to the keys nodes carry (failure-domain.beta.
// kubernetes.io/zone is topology.kubernetes.io/zone), as Karpenter reads them.
var normalizedKeys = karpv1.NormalizedLabels()

// New builds a requirement from an operator and its values, on the current name of a deprecated
// key. It does not validate: Gt with a value that is not an integer yields a requirement no
// value satisfies. Validation of user input lives with the API types.
func New(key string, op corev1.NodeSelectorOperator, values ...string) *Requirement {
	if current, ok := normalizedKeys[key]; ok {
		key = current
	}
	r := &Requirement{Key: key}
	switch op {
	case corev1.NodeSelectorOpIn:
		r.values = normalize(values)
	case corev1.NodeSelectorOpNotIn:
		r.complement = true
		r.values = normalize(values)
	case corev1.NodeSelectorOpExists:
		r.complement = true
	case corev1.NodeSelectorOpDoesNotExist:
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, OpGte, OpLte:
		r.complement = true
		n, err := singleInt(values)
		if err != nil {
			return &Requirement{Key: key} // nothing satisfies a malformed bound
		}
		switch op {
		case corev1.NodeSelectorOpGt:
			r.hasGT, r.gt = true, n
		case OpGte:
			r.hasGT, r.gt = true, n-1
		case corev1.NodeSelectorOpLt:
			r.hasLT, r.lt = true, n
		case OpLte:
			r.hasLT, r.lt = true, n+1
		}
	default:
		return &Requirement{Key: key}
	}
	return r
}

// WithMinValues returns a copy of r that asks for at least n distinct values.
func (r *Requirement) WithMinValues(n *int) *Requirement {
	c := *r
	c.MinValues = n
	return &c
}

func singleInt(values []string) (int64, error) {
	if len(values) != 1 {
		return 0, fmt.Errorf("need exactly one integer, got %d values", len(values))
	}
	return strconv.ParseInt(values[0], 10, 64)
}

func normalize(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}

// Has reports whether value is allowed.
func (r *Requirement) Has(value string) bool {
	_, found := slices.BinarySearch(r.values, value)
	if found == r.complement {
		return false
	}
	return r.withinBounds(value)
}

func (r *Requirement) withinBounds(value string) bool {
	if !r.hasGT && !r.hasLT {
		return true
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return false
	}
	return (!r.hasGT || n > r.gt) && (!r.hasLT || n < r.lt)
}

// Len is the number of allowed values; complements count as nearly infinite, as in Karpenter.
func (r *Requirement) Len() int {
	if r.complement {
		return math.MaxInt64 - len(r.values)
	}
	return len(r.values)
}

// Values lists the allowed values of a plain requirement, or the excluded ones of a complement.
// The slice is shared: do not modify it.
func (r *Requirement) Values() []string { return r.values }

// Any returns one allowed value of a plain requirement, or "" when there is none.
func (r *Requirement) Any() string {
	if r.complement || len(r.values) == 0 {
		return ""
	}
	return r.values[0]
}

// LabelValue is a value for the label of a node created to satisfy r, or "" when r allows none
// (DoesNotExist, or bounds nothing fits): the first allowed value of an In, and for Exists,
// NotIn or integer bounds the least integer allowed, from 0 up. Karpenter labels NodeClaims from
// their custom requirements the same way, but picks an integer at random; the least keeps the
// engine deterministic.
func (r *Requirement) LabelValue() string {
	if !r.complement {
		for _, v := range r.values {
			if r.withinBounds(v) {
				return v
			}
		}
		return ""
	}
	n := int64(0)
	switch {
	case r.hasGT && r.gt >= n:
		n = r.gt + 1
	case r.hasLT && r.lt <= n:
		n = r.lt - 1
	}
	// Each excluded value passed moves n up by one, so this ends within len(values)+1 steps.
	for (!r.hasLT || n < r.lt) && (!r.hasGT || n > r.gt) {
		if v := strconv.FormatInt(n, 10); r.Has(v) {
			return v
		}
		n++
	}
	return ""
}

// Operator is the operator this requirement behaves as: In, NotIn, Exists or DoesNotExist.
// Integer bounds behave as Exists (any value within them), as in Karpenter.
func (r *Requirement) Operator() corev1.NodeSelectorOperator {
	switch {
	case r.complement && len(r.values) > 0:
		return corev1.NodeSelectorOpNotIn
	case r.complement:
		return corev1.NodeSelectorOpExists
	case len(r.values) > 0:
		return corev1.NodeSelectorOpIn
	default:
		return corev1.NodeSelectorOpDoesNotExist
	}
}

// Intersection returns the values allowed by both r and o (r's key is kept).
func (r *Requirement) Intersection(o *Requirement) *Requirement {
	out := &Requirement{Key: r.Key, complement: r.complement && o.complement, MinValues: maxPtr(r.MinValues, o.MinValues)}
	out.hasGT, out.gt = tighterGT(r, o)
	out.hasLT, out.lt = tighterLT(r, o)
	if out.hasGT && out.hasLT && out.gt+1 >= out.lt {
		return &Requirement{Key: r.Key, MinValues: out.MinValues}
	}
	switch {
	case r.complement && o.complement:
		out.values = union(r.values, o.values)
	case r.complement:
		out.values = difference(o.values, r.values)
	case o.complement:
		out.values = difference(r.values, o.values)
	default:
		out.values = intersect(r.values, o.values)
	}
	if out.hasGT || out.hasLT {
		out.values = slices.DeleteFunc(out.values, func(v string) bool { return !out.withinBounds(v) })
	}
	if !out.complement { // bounds are already applied to a concrete set
		out.hasGT, out.hasLT = false, false
	}
	if len(out.values) == 0 {
		out.values = nil
	}
	return out
}

// Intersects reports whether some value is allowed by both r and o, counting two requirements
// that both forbid the label (NotIn/DoesNotExist) as compatible, as Karpenter does.
func (r *Requirement) Intersects(o *Requirement) bool {
	if r.intersectsFast(o) {
		return true
	}
	if r.Intersection(o).Len() > 0 {
		return true
	}
	return forbids(r) && forbids(o)
}

// intersectsFast answers the common cases without allocating.
func (r *Requirement) intersectsFast(o *Requirement) bool {
	switch {
	case !r.complement && !o.complement && !r.hasBounds() && !o.hasBounds():
		return sharesValue(r.values, o.values)
	case !r.complement && o.complement:
		for _, v := range r.values {
			if o.Has(v) && r.withinBounds(v) {
				return true
			}
		}
		return false
	case r.complement && !o.complement:
		return o.intersectsFast(r)
	case !r.hasBounds() && !o.hasBounds(): // two complements without bounds always share a value
		return true
	}
	return false
}

func (r *Requirement) hasBounds() bool { return r.hasGT || r.hasLT }

func forbids(r *Requirement) bool {
	op := r.Operator()
	return op == corev1.NodeSelectorOpNotIn || op == corev1.NodeSelectorOpDoesNotExist
}

// NodeSelector writes the requirement back as node selector requirements: one, or two for a
// requirement with both bounds (and a third listing values excluded within them).
func (r *Requirement) NodeSelector() []corev1.NodeSelectorRequirement {
	var out []corev1.NodeSelectorRequirement
	add := func(op corev1.NodeSelectorOperator, values ...string) {
		out = append(out, corev1.NodeSelectorRequirement{Key: r.Key, Operator: op, Values: values})
	}
	if r.hasGT {
		add(corev1.NodeSelectorOpGt, strconv.FormatInt(r.gt, 10))
	}
	if r.hasLT {
		add(corev1.NodeSelectorOpLt, strconv.FormatInt(r.lt, 10))
	}
	switch op := r.Operator(); {
	case r.hasBounds() && op == corev1.NodeSelectorOpExists:
	case op == corev1.NodeSelectorOpIn || op == corev1.NodeSelectorOpNotIn:
		add(op, slices.Clone(r.values)...)
	default:
		add(op)
	}
	return out
}

// String prints the requirement as an operator would write it: `zone In [a b]`.
func (r *Requirement) String() string {
	var b strings.Builder
	b.WriteString(r.Key)
	b.WriteByte(' ')
	switch {
	case r.complement && r.hasBounds():
		if r.hasGT {
			fmt.Fprintf(&b, "Gt %d", r.gt)
		}
		if r.hasGT && r.hasLT {
			b.WriteString(" and ")
		}
		if r.hasLT {
			fmt.Fprintf(&b, "Lt %d", r.lt)
		}
		if len(r.values) > 0 {
			fmt.Fprintf(&b, " NotIn %s", quoteList(r.values))
		}
	case r.Operator() == corev1.NodeSelectorOpExists || r.Operator() == corev1.NodeSelectorOpDoesNotExist:
		b.WriteString(string(r.Operator()))
	default:
		fmt.Fprintf(&b, "%s %s", r.Operator(), quoteList(r.values))
	}
	if r.MinValues != nil {
		fmt.Fprintf(&b, " (minValues %d)", *r.MinValues)
	}
	return b.String()
}

// ValuesString prints only the allowed values: `[a b]`, `not [a]`, `any`, `none`, `> 4`.
func (r *Requirement) ValuesString() string {
	s := r.String()
	return strings.TrimPrefix(s, r.Key+" ")
}

func quoteList(values []string) string {
	const max = 8
	if len(values) > max {
		return "[" + strings.Join(values[:max], " ") + fmt.Sprintf(" ... and %d more]", len(values)-max)
	}
	return "[" + strings.Join(values, " ") + "]"
}

func maxPtr(a, b *int) *int {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case *a >= *b:
		return a
	}
	return b
}

func tighterGT(a, b *Requirement) (bool, int64) {
	switch {
	case a.hasGT && b.hasGT:
		return true, max(a.gt, b.gt)
	case a.hasGT:
		return true, a.gt
	case b.hasGT:
		return true, b.gt
	}
	return false, 0
}

func tighterLT(a, b *Requirement) (bool, int64) {
	switch {
	case a.hasLT && b.hasLT:
		return true, min(a.lt, b.lt)
	case a.hasLT:
		return true, a.lt
	case b.hasLT:
		return true, b.lt
	}
	return false, 0
}

// The set helpers work on sorted, duplicate-free slices.

func sharesValue(a, b []string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			return true
		case c < 0:
			i++
		default:
			j++
		}
	}
	return false
}

func intersect(a, b []string) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			out = append(out, a[i])
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return out
}

func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	out = append(out, a...)
	out = append(out, b...)
	slices.Sort(out)
	return slices.Compact(out)
}

func difference(a, b []string) []string {
	var out []string
	for _, v := range a {
		if _, found := slices.BinarySearch(b, v); !found {
			out = append(out, v)
		}
	}
	return out
}
