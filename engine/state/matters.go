package state

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

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
		specChanged(old, p)
}

// specChanged reports whether the parts of a pod's spec that may change after its creation and
// that consolidation reads did: tolerations, scheduling gates, and the containers' resources (an
// in-place resize). It runs on every pod update under the state's lock, so it compares those
// parts only, not the whole spec by reflection; a generation that moved says it at once.
func specChanged(old, p *corev1.Pod) bool {
	if old.Generation != p.Generation {
		return true
	}
	return len(old.Spec.Containers) != len(p.Spec.Containers) || len(old.Spec.InitContainers) != len(p.Spec.InitContainers) ||
		!slices.EqualFunc(old.Spec.Tolerations, p.Spec.Tolerations, sameToleration) ||
		!slices.EqualFunc(old.Spec.SchedulingGates, p.Spec.SchedulingGates, func(a, b corev1.PodSchedulingGate) bool { return a.Name == b.Name }) ||
		!slices.EqualFunc(old.Spec.Containers, p.Spec.Containers, sameResources) ||
		!slices.EqualFunc(old.Spec.InitContainers, p.Spec.InitContainers, sameResources)
}

// sameToleration compares values, not the pointers to TolerationSeconds that every copy of a
// pod (each watch event) holds anew.
func sameToleration(a, b corev1.Toleration) bool {
	return a.MatchToleration(&b) && ptr.Equal(a.TolerationSeconds, b.TolerationSeconds)
}

func sameResources(a, b corev1.Container) bool {
	same := func(x, y resource.Quantity) bool { return x.Cmp(y) == 0 }
	return maps.EqualFunc(a.Resources.Requests, b.Resources.Requests, same) && maps.EqualFunc(a.Resources.Limits, b.Resources.Limits, same)
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
