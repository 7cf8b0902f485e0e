package v1

import (
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestHash(t *testing.T) {
	base := Hash(validNodePool())
	if base != Hash(validNodePool()) {
		t.Fatal("Hash is not stable")
	}
	tests := []struct {
		name    string
		mutate  func(np *NodePool)
		changes bool
	}{
		{"label", func(np *NodePool) { np.Spec.Template.Labels["team"] = "api" }, true},
		{"annotation", func(np *NodePool) { np.Spec.Template.Annotations = map[string]string{"a": "b"} }, true},
		{"taint", func(np *NodePool) { np.Spec.Template.Spec.Taints[0].Value = "api" }, true},
		{"startup taint", func(np *NodePool) {
			np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "init", Effect: corev1.TaintEffectNoSchedule}}
		}, true},
		{"nodeClassRef", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Name = "other" }, true},
		{"expireAfter", func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = NeverDuration() }, true},
		{"terminationGracePeriod", func(np *NodePool) { np.Spec.Template.Spec.TerminationGracePeriod = duration(time.Hour) }, true},
		{"requirements", func(np *NodePool) { np.Spec.Template.Spec.Requirements[0].Values = []string{"on-demand"} }, false},
		{"disruption", func(np *NodePool) { np.Spec.Disruption.ConsolidationPolicy = ConsolidationPolicyWhenEmpty }, false},
		{"limits and weight", func(np *NodePool) {
			np.Spec.Limits = Limits{"cpu": resource.MustParse("10")}
			np.Spec.Weight = ptr(int32(5))
		}, false},
		{"taint order", func(np *NodePool) {
			np.Spec.Template.Spec.Taints = append([]corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}}, np.Spec.Template.Spec.Taints...)
			other := validNodePool()
			other.Spec.Template.Spec.Taints = append(other.Spec.Template.Spec.Taints, corev1.Taint{Key: "a", Effect: corev1.TaintEffectNoExecute})
			if Hash(np) != Hash(other) {
				t.Error("taint order changed the hash")
			}
		}, true},
		// As in Karpenter, an empty map is a value and nil none.
		{"empty versus nil annotations", func(np *NodePool) { np.Spec.Template.Annotations = map[string]string{} }, true},
		{"720h written differently", func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = parseNillableDuration("719h60m") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := validNodePool()
			tt.mutate(np)
			if changed := Hash(np) != base; changed != tt.changes {
				t.Errorf("hash changed = %v, want %v", changed, tt.changes)
			}
		})
	}
}

// TestHashConcurrently: hashes computed at the same time (the lifecycle's concurrent launches
// hash node classes) are the hashes computed one at a time.
func TestHashConcurrently(t *testing.T) {
	a, b := validNodePool(), validNodePool()
	b.Spec.Template.Labels["team"] = "api"
	want := map[*NodePool]string{a: Hash(a), b: Hash(b)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wrong := 0
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				np := []*NodePool{a, b}[(i+j)%2]
				if Hash(np) != want[np] {
					mu.Lock()
					wrong++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if wrong > 0 {
		t.Errorf("%d of 1600 concurrent hashes differ from the same hash computed alone", wrong)
	}
}

func TestRehash(t *testing.T) {
	for _, tc := range []struct {
		name     string
		drifted  bool
		wantHash string
	}{
		{"takes the current hash", false, "new"},
		{"a drifted nodeclaim keeps its old hash", true, "old"},
	} {
		nc := &NodeClaim{}
		nc.Annotations = map[string]string{"h": "old", "v": "nodepilot-v1"}
		if tc.drifted {
			nc.Status.Conditions = []metav1.Condition{{Type: ConditionTypeDrifted, Status: metav1.ConditionTrue}}
		}
		Rehash(nc, "h", "new", "v", "v3")
		if nc.Annotations["h"] != tc.wantHash || nc.Annotations["v"] != "v3" {
			t.Errorf("%s: annotations %v, want hash %s version v3", tc.name, nc.Annotations, tc.wantHash)
		}
	}
}
