package kube

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/state"
)

// benchPods is the size of the cluster the benchmarks feed: the 10,000 pods the engine must
// handle without copying them per event.
const benchPods = 10_000

// fakeSource lists a fixed set of pods and hands out one watch the benchmark drives. It declares
// that it does not speak the streaming watch-list protocol, so the reflector lists then watches.
type fakeSource struct {
	*cache.ListWatch
}

func (fakeSource) IsWatchListSemanticsUnSupported() bool { return true }

// newFakeSource returns a source listing the pods list makes (called once per list) and
// watching through w.
func newFakeSource(list func() []corev1.Pod, w watch.Interface) fakeSource {
	return fakeSource{&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (apiruntime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: list()}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}}
}

// benchPod is a pod of a Deployment as the API server returns it: labels, an owner, one
// container with requests, a Running status with conditions, and the managedFields of the
// controllers that wrote it.
func benchPod(i int) corev1.Pod {
	controller := true
	managed := make([]metav1.ManagedFieldsEntry, 3)
	for j, manager := range []string{"kube-controller-manager", "kube-scheduler", "kubelet"} {
		managed[j] = metav1.ManagedFieldsEntry{
			Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(strings.Repeat(" ", 600)),
		}
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("web-7d4b9c8f6d-%05d", i), Namespace: "default", UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)),
			ResourceVersion: strconv.Itoa(i + 2), Labels: map[string]string{"app": "web", "pod-template-hash": "7d4b9c8f6d"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d4b9c8f6d", Controller: &controller}},
			ManagedFields:   managed,
		},
		Spec: corev1.PodSpec{
			NodeName: fmt.Sprintf("node-%03d", i%300),
			Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue},
		}},
	}
}

// benchPodList returns a function listing n pods.
func benchPodList(n int) func() []corev1.Pod {
	return func() []corev1.Pod {
		out := make([]corev1.Pod, n)
		for i := range out {
			out[i] = benchPod(i)
		}
		return out
	}
}

// startPodFeed runs the pod feed of cluster over src until the returned stop is called, and
// waits until the state holds the n pods listed.
func startPodFeed(b *testing.B, src fakeSource, n int, cluster *state.Cluster) (stop func()) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := feed{state.KindPod, src, &corev1.Pod{}, handle(cluster.UpdatePod, func(p *corev1.Pod) { cluster.DeletePod(pods.Key(p)) })}
	done := make(chan error, 1)
	go func() { done <- runFeeds(ctx, []feed{f}, cluster) }()
	for len(cluster.Snapshot().Pods) < n {
		time.Sleep(10 * time.Millisecond)
	}
	return func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkInformerPodUpdate measures one pod update travelling from the watch through the
// informer into state.Cluster, in clusters of 1,000 and 10,000 pods: its cost must not depend on
// the cluster's size (no copy of the state per event).
func BenchmarkInformerPodUpdate(b *testing.B) {
	for _, n := range []int{1_000, benchPods} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			w := watch.NewFakeWithChanSize(1, false)
			cluster := state.NewCluster(clock.RealClock{})
			stop := startPodFeed(b, newFakeSource(benchPodList(n), w), n, cluster)
			defer stop()
			changes := cluster.Subscribe()
			updates := make([]*corev1.Pod, b.N)
			for i := range updates {
				p := benchPod(i % n)
				p.ResourceVersion = strconv.Itoa(n + i + 2)
				updates[i] = &p
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				w.Modify(updates[i])
				<-changes
			}
		})
	}
}

// BenchmarkInformerMemory lists 10,000 pods into a fresh state.Cluster per iteration and reports
// the heap each pod costs once synced (informer cache and state share the objects; managedFields
// are dropped), next to what the same pods cost as decoded.
func BenchmarkInformerMemory(b *testing.B) {
	base := heapInUse()
	raw := benchPodList(benchPods)()
	rawPerPod := float64(heapInUse()-base) / benchPods
	runtime.KeepAlive(raw)
	raw = nil
	var perPod float64
	for range b.N {
		base := heapInUse()
		cluster := state.NewCluster(clock.RealClock{})
		stop := startPodFeed(b, newFakeSource(benchPodList(benchPods), watch.NewFake()), benchPods, cluster)
		perPod = float64(heapInUse()-base) / benchPods
		stop()
		runtime.KeepAlive(cluster)
	}
	b.ReportMetric(rawPerPod, "decoded-B/pod")
	b.ReportMetric(perPod, "synced-B/pod")
}
