package state

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/nodepilot/nodepilot/engine/pods"
)

// podChangeMatters reports whether a pod's update changes what a consolidation decision reads
// of it: its binding, phase, deletion, labels, annotations, spec, nomination, start time (a
// do-not-disrupt grace period counts from it) and whether it waits for capacity. Its other
// conditions, container statuses and addresses change all the time on a busy cluster and
// decide nothing.
func podChangeMatters(old, p *corev1.Pod) bool {
	return old.Spec.NodeName != p.Spec.NodeName || old.Status.Phase != p.Status.Phase ||
		!old.DeletionTimestamp.Equal(p.DeletionTimestamp) || !old.Status.StartTime.Equal(p.Status.StartTime) ||
		old.Status.NominatedNodeName != p.Status.NominatedNodeName ||
		pods.IsProvisionable(old) != pods.IsProvisionable(p) ||
		!maps.Equal(old.Labels, p.Labels) || !maps.Equal(old.Annotations, p.Annotations) ||
		!equality.Semantic.DeepEqual(old.Spec, p.Spec)
}

// nodeChangeMatters reports whether a node's update changes what a consolidation decision reads
// of it: its labels, annotations, taints, schedulability, provider ID, capacity, allocatable,
// readiness and deletion. Heartbeats, images and addresses decide nothing.
func nodeChangeMatters(old, n *corev1.Node) bool {
	return nodeReady(old) != nodeReady(n) || !old.DeletionTimestamp.Equal(n.DeletionTimestamp) ||
		!maps.Equal(old.Labels, n.Labels) || !maps.Equal(old.Annotations, n.Annotations) ||
		!equality.Semantic.DeepEqual(old.Spec, n.Spec) ||
		!equality.Semantic.DeepEqual(old.Status.Capacity, n.Status.Capacity) ||
		!equality.Semantic.DeepEqual(old.Status.Allocatable, n.Status.Allocatable)
}
