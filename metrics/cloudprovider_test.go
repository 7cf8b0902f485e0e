package metrics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// collectors is a Registerer that keeps what is registered on it.
type collectors []prometheus.Collector

func (c *collectors) Register(x prometheus.Collector) error { *c = append(*c, x); return nil }
func (c *collectors) MustRegister(xs ...prometheus.Collector) {
	*c = append(*c, xs...)
}
func (c *collectors) Unregister(prometheus.Collector) bool { return false }

// fakeCloud fails every call with err.
type fakeCloud struct{ err error }

func (f *fakeCloud) Create(context.Context, *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	return nil, f.err
}
func (f *fakeCloud) Delete(context.Context, *karpv1.NodeClaim) error { return f.err }
func (f *fakeCloud) Get(context.Context, string) (*karpv1.NodeClaim, error) {
	return nil, f.err
}
func (f *fakeCloud) List(context.Context) ([]*karpv1.NodeClaim, error) { return nil, f.err }
func (f *fakeCloud) InstanceTypes(context.Context, *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	return nil, f.err
}
func (f *fakeCloud) IsDrifted(context.Context, *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	return "", f.err
}
func (f *fakeCloud) Name() string { return "aws" }

func (f *fakeCloud) NodeClassKind() schema.GroupKind {
	return schema.GroupKind{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass"}
}

// TestDecoratedCloudIsMeasured: every call is timed by the calling loop's controller name and
// Karpenter's method name, and its error counted by Karpenter's error types.
func TestDecoratedCloudIsMeasured(t *testing.T) {
	ctx := cloudprovider.WithController(t.Context(), "provisioner")
	for _, tc := range []struct {
		name       string
		err        error
		call       func(cloudprovider.CloudProvider) error
		wantCalls  string
		wantErrors map[string]float64
	}{
		{"a launch without capacity", fmt.Errorf("launching: %w", &cloudprovider.InsufficientCapacityError{NodeClaim: "a"}),
			func(cp cloudprovider.CloudProvider) error { _, err := cp.Create(ctx, &karpv1.NodeClaim{}); return err },
			"controller=provisioner,method=Create,provider=aws",
			map[string]float64{"controller=provisioner,error=InsufficientCapacityError,method=Create,provider=aws": 1}},
		{"a machine already gone", &cloudprovider.NodeClaimNotFoundError{},
			func(cp cloudprovider.CloudProvider) error { return cp.Delete(ctx, &karpv1.NodeClaim{}) },
			"controller=provisioner,method=Delete,provider=aws",
			map[string]float64{"controller=provisioner,error=NodeClaimNotFoundError,method=Delete,provider=aws": 1}},
		{"a node class not ready", &cloudprovider.NodeClassNotReadyError{},
			func(cp cloudprovider.CloudProvider) error {
				_, err := cp.InstanceTypes(ctx, &karpv1.NodePool{})
				return err
			},
			"controller=provisioner,method=GetInstanceTypes,provider=aws",
			map[string]float64{"controller=provisioner,error=NodeClassNotReadyError,method=GetInstanceTypes,provider=aws": 1}},
		{"any other error", errors.New("throttled"),
			func(cp cloudprovider.CloudProvider) error { _, err := cp.List(ctx); return err },
			"controller=provisioner,method=List,provider=aws",
			map[string]float64{"controller=provisioner,error=,method=List,provider=aws": 1}},
		{"a call that succeeds", nil,
			func(cp cloudprovider.CloudProvider) error {
				_, err := cp.IsDrifted(ctx, &karpv1.NodeClaim{})
				return err
			},
			"controller=provisioner,method=IsDrifted,provider=aws", map[string]float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reg collectors
			cp := Decorate(&fakeCloud{err: tc.err}, &reg)
			if err := tc.call(cp); !errors.Is(err, tc.err) {
				t.Fatalf("the decorated call returned %v, want %v", err, tc.err)
			}
			got := map[string]float64{}
			calls := ""
			for _, c := range reg {
				for _, m := range series(t, c, "karpenter_cloudprovider_errors_total") {
					got[labelString(m.GetLabel())] = m.GetCounter().GetValue()
				}
				for _, m := range series(t, c, "karpenter_cloudprovider_duration_seconds") {
					if m.GetHistogram().GetSampleCount() == 1 {
						calls = labelString(m.GetLabel())
					}
				}
			}
			if calls != tc.wantCalls {
				t.Errorf("timed call %q, want %q", calls, tc.wantCalls)
			}
			if !maps.Equal(got, tc.wantErrors) {
				t.Errorf("errors %v, want %v", got, tc.wantErrors)
			}
		})
	}
}
