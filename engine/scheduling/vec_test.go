package scheduling

import (
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestValueSaturates(t *testing.T) {
	tests := []struct {
		name corev1.ResourceName
		q    string
		want int64
	}{
		{corev1.ResourceCPU, "0", 0},
		{corev1.ResourceCPU, "1500m", 1500},
		{corev1.ResourceCPU, "-1", -1000},
		{corev1.ResourceCPU, "9223372036854775807m", math.MaxInt64},
		{corev1.ResourceCPU, "9300000000000000", math.MaxInt64},
		{corev1.ResourceCPU, "1e16", math.MaxInt64},
		{corev1.ResourceCPU, "1e19", math.MaxInt64},
		{corev1.ResourceCPU, "1e22", math.MaxInt64},
		{corev1.ResourceCPU, "1e30", math.MaxInt64},
		{corev1.ResourceCPU, "-1e30", -math.MaxInt64},
		{corev1.ResourceMemory, "1e30", math.MaxInt64},
		{corev1.ResourceMemory, "1Gi", 1 << 30},
		{corev1.ResourceCPU, "1e999", math.MaxInt64},
		// Quantity.Value gives 1 and 0 for these; found by FuzzValue.
		{corev1.ResourceMemory, "-9223372036854775807", -math.MaxInt64},
		{corev1.ResourceMemory, "-4611686018427387904", -4611686018427387904},
		{corev1.ResourceCPU, "-4611686018427387904", -math.MaxInt64},
		{corev1.ResourceMemory, "-1e999", -math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(string(tt.name)+"="+tt.q, func(t *testing.T) {
			if got := value(tt.name, resource.MustParse(tt.q)); got != tt.want {
				t.Fatalf("value = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestAddSaturates(t *testing.T) {
	tests := []struct{ a, b, want int64 }{
		{1, 2, 3},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{-math.MaxInt64, -1, -math.MaxInt64},
		{-math.MaxInt64, -math.MaxInt64, -math.MaxInt64},
		{math.MaxInt64, -math.MaxInt64, 0},
		{0, 0, 0},
	}
	for _, tt := range tests {
		if got := add(tt.a, tt.b); got != tt.want {
			t.Errorf("add(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestHugeRequestsAndLimits solves with requests and limits beyond int64 millicores: a request
// no type holds is unschedulable with its figures, a limit beyond everything is no limit.
func TestHugeRequestsAndLimits(t *testing.T) {
	types := syntheticTypes(8)
	for _, cpu := range []string{"9300000000000000", "1e16", "1e19", "1e22", "1e30"} {
		t.Run("request "+cpu, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{pool("p", 10, types)}, Pods: []*corev1.Pod{pod("big", cpu, "")}})
			if len(r.Unschedulable) != 1 || len(r.NewNodeClaims) != 0 {
				t.Fatalf("want the pod unschedulable, got %d nodeclaims", len(r.NewNodeClaims))
			}
			pe := r.Unschedulable[0]
			if got := reasonCodes(pe)["p"]; got != ReasonInsufficientResources {
				t.Fatalf("reason = %q, want %s", got, ReasonInsufficientResources)
			}
			if msg := pe.Reasons[0].Message; strings.Contains(msg, "cpu -") || !strings.Contains(msg, "the most cpu any offers is 7.9") {
				t.Fatalf("message %q", msg)
			}
		})
	}
	for _, limit := range []string{"1e16", "1e19", "1e22", "1e30"} {
		t.Run("limit "+limit, func(t *testing.T) {
			np := pool("p", 10, types)
			np.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(limit)}
			r := Solve(&Input{NodePools: []NodePool{np}, Pods: []*corev1.Pod{pod("small", "1", "")}})
			if len(r.Unschedulable) != 0 || len(r.NewNodeClaims) != 1 {
				t.Fatalf("want one nodeclaim, got %d and %d unschedulable", len(r.NewNodeClaims), len(r.Unschedulable))
			}
		})
	}
}
