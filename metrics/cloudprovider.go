package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// measuredCloud times every call of a cloud provider and counts its errors, as Karpenter's
// cloudprovider_duration_seconds and cloudprovider_errors_total do, by the calling loop's
// controller name (cloudprovider.WithController), the method in Karpenter's words and the
// provider.
type measuredCloud struct {
	cloudprovider.CloudProvider
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

// Decorate returns cp measured on reg. Decorate a provider once: every call through the result
// is counted.
func Decorate(cp cloudprovider.CloudProvider, reg prometheus.Registerer) cloudprovider.CloudProvider {
	m := &measuredCloud{CloudProvider: cp,
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "karpenter_cloudprovider_duration_seconds",
			Help: "How long cloud provider calls take, in seconds, by controller, method and provider."}, []string{"controller", "method", "provider"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "karpenter_cloudprovider_errors_total",
			Help: "Errors returned by cloud provider calls, by controller, method, provider and error type."}, []string{"controller", "method", "provider", "error"}),
	}
	reg.MustRegister(m.duration, m.errors)
	return m
}

// measure records one call that began at start.
func (m *measuredCloud) measure(ctx context.Context, method string, start time.Time, err error) {
	controller := cloudprovider.ControllerOf(ctx)
	m.duration.WithLabelValues(controller, method, m.Name()).Observe(time.Since(start).Seconds())
	if err != nil {
		m.errors.WithLabelValues(controller, method, m.Name(), errorType(err)).Inc()
	}
}

// errorType is Karpenter's error label: the well-known cloud provider errors by name, others "".
func errorType(err error) string {
	var notReady *cloudprovider.NodeClassNotReadyError
	switch {
	case cloudprovider.IsInsufficientCapacity(err):
		return "InsufficientCapacityError"
	case cloudprovider.IsNodeClaimNotFound(err):
		return "NodeClaimNotFoundError"
	case errors.As(err, &notReady):
		return "NodeClassNotReadyError"
	}
	return ""
}

// Create implements cloudprovider.CloudProvider.
func (m *measuredCloud) Create(ctx context.Context, nc *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	start := time.Now()
	out, err := m.CloudProvider.Create(ctx, nc)
	m.measure(ctx, "Create", start, err)
	return out, err
}

// Delete implements cloudprovider.CloudProvider.
func (m *measuredCloud) Delete(ctx context.Context, nc *karpv1.NodeClaim) error {
	start := time.Now()
	err := m.CloudProvider.Delete(ctx, nc)
	m.measure(ctx, "Delete", start, err)
	return err
}

// Get implements cloudprovider.CloudProvider.
func (m *measuredCloud) Get(ctx context.Context, providerID string) (*karpv1.NodeClaim, error) {
	start := time.Now()
	out, err := m.CloudProvider.Get(ctx, providerID)
	m.measure(ctx, "Get", start, err)
	return out, err
}

// List implements cloudprovider.CloudProvider.
func (m *measuredCloud) List(ctx context.Context) ([]*karpv1.NodeClaim, error) {
	start := time.Now()
	out, err := m.CloudProvider.List(ctx)
	m.measure(ctx, "List", start, err)
	return out, err
}

// InstanceTypes implements cloudprovider.CloudProvider; Karpenter calls it GetInstanceTypes.
func (m *measuredCloud) InstanceTypes(ctx context.Context, np *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	start := time.Now()
	out, err := m.CloudProvider.InstanceTypes(ctx, np)
	m.measure(ctx, "GetInstanceTypes", start, err)
	return out, err
}

// IsDrifted implements cloudprovider.CloudProvider.
func (m *measuredCloud) IsDrifted(ctx context.Context, nc *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	start := time.Now()
	out, err := m.CloudProvider.IsDrifted(ctx, nc)
	m.measure(ctx, "IsDrifted", start, err)
	return out, err
}
