package scheduling

import (
	"math"
	"math/big"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodepilot/nodepilot/kube/quantity"
)

// FuzzValue checks the engine's integer view of quantities against exact big-number arithmetic:
// value is the quantity in the dimension's unit, rounded away from zero as Quantity.Value does,
// saturated at ±MaxInt64 instead of wrapping; add of two values is their exact sum, saturated.
func FuzzValue(f *testing.F) {
	for _, seed := range []struct {
		a, b string
		cpu  bool
	}{
		{"500m", "1.5", true}, {"4Gi", "512Mi", false}, {"9300000000000000", "1", true}, {"1e19", "-1e19", false},
		{"9223372036854775807", "1", false}, {"-9223372036854775807", "-2", false}, {"0.0001", "1n", true},
		{"1e999", "1", true}, {"-1.5e-3", "7Ei", true}, {"9223372036854775.807", "0.001", true},
	} {
		f.Add(seed.a, seed.b, seed.cpu)
	}
	maxInt := big.NewInt(math.MaxInt64)
	minInt := new(big.Int).Neg(maxInt)
	clamp := func(x *big.Int) int64 {
		switch {
		case x.Cmp(maxInt) > 0:
			return math.MaxInt64
		case x.Cmp(minInt) < 0:
			return -math.MaxInt64
		}
		return x.Int64()
	}
	f.Fuzz(func(t *testing.T, a, b string, cpu bool) {
		name := corev1.ResourceMemory
		scale := big.NewRat(1, 1)
		if cpu {
			name, scale = corev1.ResourceCPU, big.NewRat(1000, 1)
		}
		var values [2]int64
		for i, s := range []string{a, b} {
			if quantity.CheckExponent(s) != nil {
				return // the loader refuses it before parsing, which would take minutes
			}
			q, err := resource.ParseQuantity(s)
			if err != nil {
				return
			}
			values[i] = value(name, q)
			want := clamp(awayFromZero(new(big.Rat).Mul(exact(q), scale)))
			// Past maxValue/1000 cores either way, CPU saturates a little early (by under a core).
			nearEnd := cpu && (want > math.MaxInt64-1000 && values[i] == math.MaxInt64 ||
				want < -math.MaxInt64+1000 && values[i] == -math.MaxInt64)
			if values[i] != want && !nearEnd {
				t.Fatalf("value(%s %q) = %d, want %d", name, s, values[i], want)
			}
		}
		sum := new(big.Int).Add(big.NewInt(values[0]), big.NewInt(values[1]))
		if got, want := add(values[0], values[1]), clamp(sum); got != want {
			t.Fatalf("add(%d, %d) = %d, want %d", values[0], values[1], got, want)
		}
	})
}

// exact is q as a fraction, from its decimal form.
func exact(q resource.Quantity) *big.Rat {
	d := q.AsDec()
	r := new(big.Rat).SetInt(d.UnscaledBig())
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(int(d.Scale())))), nil)
	if d.Scale() > 0 {
		return r.Quo(r, new(big.Rat).SetInt(pow))
	}
	return r.Mul(r, new(big.Rat).SetInt(pow))
}

// awayFromZero rounds r to the integer away from zero, as Quantity.Value and MilliValue do.
func awayFromZero(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(int64(r.Sign())))
	}
	return q
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
