package localcluster

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Instance is a running machine that should appear as a Node.
type Instance struct {
	ID, Zone, Region, InstanceType, CapacityType, Arch, OS string

	// ProviderID is aws:///ZONE/INSTANCE-ID; empty means that, made of Zone and ID.
	ProviderID string

	// Labels go on the Node as they are: karpenter.sh/nodepool, karpenter.k8s.aws/instance-* etc.
	Labels map[string]string

	Capacity, Allocatable corev1.ResourceList

	LaunchedAt time.Time
}

// Instances lists the instances that are running now.
type Instances interface {
	Running(ctx context.Context) ([]Instance, error)
}
