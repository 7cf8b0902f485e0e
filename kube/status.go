package kube

import (
	"context"
	"fmt"

	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// UpdateNodePool changes the named NodePool's metadata (its hash annotations).
func (w *Writer) UpdateNodePool(ctx context.Context, name string, mutate func(*karpv1.NodePool) error) (*karpv1.NodePool, error) {
	get := func(ctx context.Context) (*karpv1.NodePool, error) { return w.clients.NodePools.Get(ctx, name) }
	send := func(ctx context.Context, patch []byte) (*karpv1.NodePool, error) {
		return w.clients.NodePools.Patch(ctx, name, patch, false)
	}
	return update(ctx, fmt.Sprintf("nodepool %q", name), get, mutate, send)
}

// UpdateNodePoolStatus changes the named NodePool's status (resources, nodes, conditions)
// through the status subresource.
func (w *Writer) UpdateNodePoolStatus(ctx context.Context, name string, mutate func(*karpv1.NodePool) error) error {
	get := func(ctx context.Context) (*karpv1.NodePool, error) { return w.clients.NodePools.Get(ctx, name) }
	send := func(ctx context.Context, patch []byte) (*karpv1.NodePool, error) {
		return w.clients.NodePools.Patch(ctx, name, patch, true)
	}
	_, err := update(ctx, fmt.Sprintf("status of nodepool %q", name), get, mutate, send)
	return err
}

// UpdateNodeClass changes the named EC2NodeClass's metadata (its finalizers).
func (w *Writer) UpdateNodeClass(ctx context.Context, name string, mutate func(state.NodeClass) error) (state.NodeClass, error) {
	get := func(ctx context.Context) (*awsv1.EC2NodeClass, error) { return w.clients.NodeClasses.Get(ctx, name) }
	send := func(ctx context.Context, patch []byte) (*awsv1.EC2NodeClass, error) {
		return w.clients.NodeClasses.Patch(ctx, name, patch, false)
	}
	nc, err := update(ctx, fmt.Sprintf("ec2nodeclass %q", name), get, func(nc *awsv1.EC2NodeClass) error { return mutate(nc) }, send)
	if err != nil {
		return nil, err
	}
	return nc, nil
}

// UpdateNodeClassStatus changes the named EC2NodeClass's status (subnets, security groups,
// AMIs, instance profile, conditions) through the status subresource.
func (w *Writer) UpdateNodeClassStatus(ctx context.Context, name string, mutate func(state.NodeClass) error) error {
	get := func(ctx context.Context) (*awsv1.EC2NodeClass, error) { return w.clients.NodeClasses.Get(ctx, name) }
	send := func(ctx context.Context, patch []byte) (*awsv1.EC2NodeClass, error) {
		return w.clients.NodeClasses.Patch(ctx, name, patch, true)
	}
	_, err := update(ctx, fmt.Sprintf("status of ec2nodeclass %q", name), get, func(nc *awsv1.EC2NodeClass) error { return mutate(nc) }, send)
	return err
}
