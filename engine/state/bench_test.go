package state

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// BenchmarkSnapshot builds the snapshot of 10,000 running pods on 2,000 nodes after a change to
// one pod, as the first loop a change wakes does (the others share it).
func BenchmarkSnapshot(b *testing.B) {
	c := NewCluster(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	for n := range 2000 {
		c.UpdateNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", n)}})
	}
	var pod *corev1.Pod
	for p := range 10000 {
		pod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", p%7), Name: fmt.Sprintf("pod-%d", p)},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", p*7919%2000)}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		c.UpdatePod(pod)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.UpdatePod(pod)
		if s := c.Snapshot(); len(s.Pods) != 10000 {
			b.Fatal(len(s.Pods))
		}
	}
}
