package app

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// ErrReadOnly is what every write answers in read-only mode.
var ErrReadOnly = errors.New("nodepilot runs read-only (--readonly): it changes nothing")

// readOnly is a Writer that writes nothing at all.
type readOnly struct{}

var _ state.Writer = readOnly{}

func (readOnly) CreateNodeClaim(context.Context, *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	return nil, ErrReadOnly
}
func (readOnly) UpdateNodeClaim(context.Context, string, func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error) {
	return nil, ErrReadOnly
}
func (readOnly) UpdateNodeClaimStatus(context.Context, string, func(*karpv1.NodeClaim) error) (*karpv1.NodeClaim, error) {
	return nil, ErrReadOnly
}
func (readOnly) DeleteNodeClaim(context.Context, string) error { return ErrReadOnly }
func (readOnly) UpdateNode(context.Context, string, func(*corev1.Node) error) (*corev1.Node, error) {
	return nil, ErrReadOnly
}
func (readOnly) DeleteNode(context.Context, string) error             { return ErrReadOnly }
func (readOnly) Evict(context.Context, *corev1.Pod) error             { return ErrReadOnly }
func (readOnly) DeletePod(context.Context, *corev1.Pod, *int64) error { return ErrReadOnly }
func (readOnly) Event(runtime.Object, string, string, string)         {}
func (readOnly) UpdateNodePoolStatus(context.Context, string, func(*karpv1.NodePool) error) error {
	return ErrReadOnly
}
func (readOnly) UpdateNodeClassStatus(context.Context, string, func(*awsv1.EC2NodeClass) error) error {
	return ErrReadOnly
}
