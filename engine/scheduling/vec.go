package scheduling

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// space numbers the resource names of one solve so that requests and capacities become short
// integer vectors: CPU in millicores, every other resource in its base unit.
type space struct {
	names []corev1.ResourceName
	index map[corev1.ResourceName]int
}

func newSpace() *space {
	s := &space{index: map[corev1.ResourceName]int{}}
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		s.add(n)
	}
	return s
}

func (s *space) add(name corev1.ResourceName) {
	if _, ok := s.index[name]; !ok {
		s.index[name] = len(s.names)
		s.names = append(s.names, name)
	}
}

// sortExtra orders the names beyond CPU, memory and pods, so that the same resources always
// make the same space (and a Cache can recognize it).
func (s *space) sortExtra() {
	slices.Sort(s.names[3:])
	for i, n := range s.names {
		s.index[n] = i
	}
}

func (s *space) addAll(l corev1.ResourceList) {
	for name := range l {
		s.add(name)
	}
}

// missing lists the resources of l with a non-zero quantity that the space does not know.
func (s *space) missing(l corev1.ResourceList) []string {
	var out []string
	for name, q := range l {
		if _, ok := s.index[name]; !ok && !q.IsZero() {
			out = append(out, string(name))
		}
	}
	slices.Sort(out)
	return out
}

// vec is a resource vector in a space.
type vec []int64

func (s *space) vec(l corev1.ResourceList) vec {
	v := make(vec, len(s.names))
	for name, q := range l {
		if i, ok := s.index[name]; ok {
			v[i] = value(name, q)
		}
	}
	return v
}

// maxValue is the largest magnitude a vector dimension holds: values and sums beyond it stop
// there instead of wrapping around, so a request too large for int64 stays too large to fit.
const maxValue = math.MaxInt64

// value is q in the dimension's unit (millicores for CPU), rounded away from zero and clamped
// to ±maxValue: MilliValue and Value wrap past int64.
func value(name corev1.ResourceName, q resource.Quantity) int64 {
	if q.Sign() < 0 {
		// Value and MilliValue are wrong for large negative quantities (-9223372036854775807
		// gives 1, -4611686018427387904 gives 0); their magnitude is right.
		q = q.DeepCopy()
		q.Neg()
		return -value(name, q)
	}
	scaled, limit := q.Value, int64(maxValue)
	if name == corev1.ResourceCPU {
		scaled, limit = q.MilliValue, maxValue/1000
	}
	// Far past int64 either way, the approximate value decides: comparing a quantity with a
	// long exponent (1e99999999) exactly takes minutes.
	switch f := q.AsApproximateFloat64(); {
	case f > 2*float64(limit):
		return maxValue
	case f < -2*float64(limit):
		return -maxValue
	}
	switch {
	case q.CmpInt64(limit) > 0:
		return maxValue
	case q.CmpInt64(-limit) < 0:
		return -maxValue
	}
	return scaled()
}

// add is a+b clamped to ±maxValue.
func add(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return maxValue
	case a < 0 && b < 0 && s >= 0, s < -maxValue:
		return -maxValue
	}
	return s
}

func (s *space) list(v vec) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i, x := range v {
		if x != 0 {
			out[s.names[i]] = s.quantity(i, x)
		}
	}
	return out
}

// quantity turns dimension i's integer back into a quantity in the resource's usual format.
func (s *space) quantity(i int, x int64) resource.Quantity {
	switch name := s.names[i]; {
	case name == corev1.ResourceCPU:
		return *resource.NewMilliQuantity(x, resource.DecimalSI)
	case name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(name), "hugepages-"):
		return *resource.NewQuantity(x, resource.BinarySI)
	default:
		return *resource.NewQuantity(x, resource.DecimalSI)
	}
}

// format prints a vector for people, skipping zeros: "cpu 1.5, memory 2Gi, pods 3".
func (s *space) format(v vec) string {
	var parts []string
	for i, x := range v {
		if x != 0 {
			parts = append(parts, s.names[i].String()+" "+s.human(i, x))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// human prints one dimension's value as people read it: CPU in cores (or millicores below one),
// byte sizes in Gi (or Mi below one), counts as they are.
func (s *space) human(i int, x int64) string {
	name := s.names[i]
	switch {
	case name == corev1.ResourceCPU && x%1000 != 0 && x < 1000:
		return fmt.Sprintf("%dm", x)
	case name == corev1.ResourceCPU:
		return strconv.FormatFloat(float64(x)/1000, 'f', -1, 64)
	case name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(name), "hugepages-"):
		if x >= 1<<30 {
			return strconv.FormatFloat(math.Round(float64(x)/(1<<30)*10)/10, 'f', -1, 64) + "Gi"
		}
		return strconv.FormatFloat(math.Round(float64(x)/(1<<20)), 'f', -1, 64) + "Mi"
	}
	return strconv.FormatInt(x, 10)
}

// fitsWith reports whether used+extra <= capacity in every dimension.
func fitsWith(used, extra, capacity vec) bool {
	for i, c := range capacity {
		if add(used[i], extra[i]) > c {
			return false
		}
	}
	return true
}

// fits reports whether v <= capacity in every dimension.
func fits(v, capacity vec) bool {
	for i, c := range capacity {
		if v[i] > c {
			return false
		}
	}
	return true
}

func sum(a, b vec) vec {
	out := make(vec, len(a))
	for i := range a {
		out[i] = add(a[i], b[i])
	}
	return out
}

func (v vec) addInPlace(o vec) {
	for i := range v {
		v[i] = add(v[i], o[i])
	}
}

func (v vec) subInPlace(o vec) {
	for i := range v {
		v[i] = add(v[i], -o[i])
	}
}

// maxInPlace raises v to o where o is larger.
func (v vec) maxInPlace(o vec) {
	for i := range v {
		v[i] = max(v[i], o[i])
	}
}
