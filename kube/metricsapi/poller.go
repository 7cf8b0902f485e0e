package metricsapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/usage"
)

// Options tune a Poller; zero fields take the defaults.
type Options struct {
	// Every is the polling period (15s, metrics-server's default resolution).
	Every time.Duration
	// Timeout bounds one poll (10s).
	Timeout time.Duration
	// Window is how long pod readings are kept for right-sizing (30m).
	Window time.Duration
	Clock  clock.WithTicker
}

// Poller polls metrics.k8s.io. Snapshot and Stats are safe from any goroutine.
type Poller struct {
	client metricsclient.Interface
	opts   Options

	mu     sync.Mutex // guards window
	window *usage.Window
	snap   atomic.Pointer[usage.Snapshot]
}

// New returns a Poller over a metrics.k8s.io client.
func New(client metricsclient.Interface, opts Options) *Poller {
	if opts.Every == 0 {
		opts.Every = 15 * time.Second
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Window == 0 {
		opts.Window = 30 * time.Minute
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	p := &Poller{client: client, opts: opts, window: usage.NewWindow(opts.Window)}
	p.snap.Store(&usage.Snapshot{Status: "reading metrics.k8s.io for the first time"})
	return p
}

// Run polls at once, then every period, until ctx ends.
func (p *Poller) Run(ctx context.Context) {
	tick := p.opts.Clock.NewTicker(p.opts.Every)
	defer tick.Stop()
	for {
		p.Poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C():
		}
	}
}

// Snapshot is the latest published figures.
func (p *Poller) Snapshot() *usage.Snapshot { return p.snap.Load() }

// Stats is a container's use across pods ("namespace/name") over the window.
func (p *Poller) Stats(pods []string, container string, percentile float64) usage.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.window.Stats(pods, container, percentile)
}

// Poll reads node and pod metrics once and publishes them; when it cannot, it keeps the last
// figures and publishes why.
func (p *Poller) Poll(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	r, err := p.read(ctx)
	if err != nil {
		prev := p.snap.Load()
		next := *prev
		next.Status = p.why(err)
		if prev.Has() {
			next.Status += "; figures from " + duration.HumanDuration(p.opts.Clock.Since(prev.Time)) + " ago"
		}
		p.snap.Store(&next)
		return
	}
	p.mu.Lock()
	p.window.Add(r)
	p.mu.Unlock()
	s := &usage.Snapshot{Time: r.Time, Nodes: r.Nodes, Pods: make(map[types.NamespacedName]usage.Use, len(r.Pods))}
	for k, pt := range r.Pods {
		ns, name, _ := strings.Cut(k, "/")
		s.Pods[types.NamespacedName{Namespace: ns, Name: name}] = pt.Total()
	}
	p.snap.Store(s)
}

func (p *Poller) read(ctx context.Context) (usage.Reading, error) {
	r := usage.Reading{Time: p.opts.Clock.Now()}
	nodes, err := p.client.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return r, fmt.Errorf("listing node metrics: %w", err)
	}
	pods, err := p.client.MetricsV1beta1().PodMetricses(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return r, fmt.Errorf("listing pod metrics: %w", err)
	}
	r.Nodes = make(map[string]usage.Use, len(nodes.Items))
	for _, n := range nodes.Items {
		r.Nodes[n.Name] = usage.Of(n.Usage)
	}
	r.Pods = make(map[string]usage.Point, len(pods.Items))
	for _, pm := range pods.Items {
		r.Pods[pm.Namespace+"/"+pm.Name] = usage.PointOf(&pm)
	}
	return r, nil
}

// why says in a sentence why a poll failed and what to do about it.
func (p *Poller) why(err error) string {
	switch {
	case apierrors.IsNotFound(err):
		return "metrics.k8s.io is not served: install metrics-server (kubectl top needs it too)"
	case apierrors.IsServiceUnavailable(err):
		return "metrics-server is not answering (its APIService is unavailable): check its pod and logs in kube-system"
	case apierrors.IsForbidden(err):
		return "not allowed to read metrics.k8s.io: grant get and list on nodes and pods of metrics.k8s.io"
	case errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return fmt.Sprintf("metrics.k8s.io did not answer within %s", p.opts.Timeout)
	}
	return "metrics.k8s.io: " + err.Error()
}
