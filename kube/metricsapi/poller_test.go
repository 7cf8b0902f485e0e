package metricsapi

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/metrics/pkg/client/clientset/versioned/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/usage"
)

// server plays metrics.k8s.io: it answers lists with its current figures, or fails with err.
type server struct {
	client *fake.Clientset
	at     time.Time
	cpu    string
	err    error
}

func newServer(t *testing.T) *server {
	s := &server{client: fake.NewSimpleClientset(), cpu: "250m"}
	list := func(kind string) k8stesting.ReactionFunc {
		return func(k8stesting.Action) (bool, runtime.Object, error) {
			if s.err != nil {
				return true, nil, s.err
			}
			usage := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(s.cpu), corev1.ResourceMemory: resource.MustParse("64Mi")}
			if kind == "nodes" {
				return true, &metricsv1beta1.NodeMetricsList{Items: []metricsv1beta1.NodeMetrics{
					{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Timestamp: metav1.NewTime(s.at), Usage: usage}}}, nil
			}
			return true, &metricsv1beta1.PodMetricsList{Items: []metricsv1beta1.PodMetrics{{
				ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"}, Timestamp: metav1.NewTime(s.at),
				Containers: []metricsv1beta1.ContainerMetrics{{Name: "app", Usage: usage}, {Name: "sidecar", Usage: usage}}}}}, nil
		}
	}
	s.client.PrependReactor("list", "nodes", list("nodes"))
	s.client.PrependReactor("list", "pods", list("pods"))
	return s
}

var webPod = types.NamespacedName{Namespace: "shop", Name: "web-1"}

func TestPoll(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	gone := apierrors.NewNotFound(schema.GroupResource{Group: "metrics.k8s.io", Resource: "nodes"}, "")
	down := apierrors.NewServiceUnavailable("the server is currently unable to handle the request")
	for _, tc := range []struct {
		name string
		// errs are what the server answers poll after poll (nil: figures), 30 seconds apart.
		errs []error
		// status is the last snapshot's, cpu the pod's CPU then, samples the window's.
		status  string
		cpu     int64
		samples int
	}{
		{"figures", []error{nil}, "", 500, 1},
		{"two scrapes", []error{nil, nil}, "", 500, 2},
		{"not served", []error{gone}, "metrics.k8s.io is not served: install metrics-server (kubectl top needs it too)", 0, 0},
		{"down after figures", []error{nil, down},
			"metrics-server is not answering (its APIService is unavailable): check its pod and logs in kube-system; figures from 30s ago", 500, 1},
		{"slow", []error{context.DeadlineExceeded}, "metrics.k8s.io did not answer within 10s", 0, 0},
		{"forbidden", []error{apierrors.NewForbidden(schema.GroupResource{Group: "metrics.k8s.io", Resource: "pods"}, "", nil)},
			"not allowed to read metrics.k8s.io: grant get and list on nodes and pods of metrics.k8s.io", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(t0)
			s := newServer(t)
			p := New(s.client, Options{Clock: clk})
			if got := p.Snapshot(); got.Has() || got.Status == "" {
				t.Fatalf("before the first poll: %+v, want no figures and a status", got)
			}
			for i, err := range tc.errs {
				if i > 0 {
					clk.Step(30 * time.Second)
				}
				s.at, s.err = clk.Now().Add(-5*time.Second), err
				p.Poll(context.Background())
			}
			got := p.Snapshot()
			if got.Status != tc.status {
				t.Errorf("status %q, want %q", got.Status, tc.status)
			}
			if pod := got.Pods[webPod]; pod.CPU != tc.cpu || got.Has() != (tc.cpu > 0) {
				t.Errorf("pod uses %+v (has figures: %v), want %dm", pod, got.Has(), tc.cpu)
			}
			if tc.cpu > 0 && got.Nodes["node-a"] != (usage.Use{CPU: 250, Mem: 64 << 20}) {
				t.Errorf("node uses %+v", got.Nodes["node-a"])
			}
			if st := p.Stats([]string{"shop/web-1"}, "app", 0.95); st.Samples != tc.samples {
				t.Errorf("%d samples in the window, want %d", st.Samples, tc.samples)
			}
		})
	}
}

// TestRunPollsEveryPeriod: Run reads at once, then at each tick, until its context ends.
func TestRunPollsEveryPeriod(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	s := newServer(t)
	s.at = clk.Now()
	p := New(s.client, Options{Clock: clk})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	eventually.True(t, 10*time.Second, "a first reading", func(context.Context) (bool, string) { return p.Snapshot().Has(), "" })
	eventually.True(t, 10*time.Second, "Run waiting for its tick", func(context.Context) (bool, string) { return clk.HasWaiters(), "" })
	s.cpu, s.at = "750m", clk.Now().Add(15*time.Second)
	clk.Step(15 * time.Second)
	eventually.True(t, 10*time.Second, "the second reading", func(context.Context) (bool, string) {
		return p.Snapshot().Pods[webPod].CPU == 1500, fmt.Sprintf("web CPU %d", p.Snapshot().Pods[webPod].CPU)
	})
	cancel()
	eventually.Receive(t, 10*time.Second, "Run's return after its context ended", done)
	if st := p.Stats([]string{"shop/web-1"}, "app", 1); st.Samples != 2 || st.CPU != 750 {
		t.Errorf("window %+v, want two readings, the larger 750m", st)
	}
}
