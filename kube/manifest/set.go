package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// Set is what a set of manifests declares, in file and document order, defaulted and valid.
type Set struct {
	NodePools      []*karpv1.NodePool
	NodeClaims     []*karpv1.NodeClaim
	EC2NodeClasses []*awsv1.EC2NodeClass
	// Pods are the pods of the manifests: Pod documents and the pods that Deployments,
	// ReplicaSets, StatefulSets and Jobs would create. They are pending (PodScheduled false,
	// Unschedulable) unless spec.nodeName binds them to a node.
	Pods []*corev1.Pod
	// Workloads made the pods that are not Pod documents; Scalers scale some of them.
	Workloads []*Workload
	Scalers   []Scaler
	// DaemonSets are kept whole: their pods are overhead on every node, not pods to place.
	DaemonSets []*appsv1.DaemonSet
	Nodes      []*corev1.Node
	PDBs       []*policyv1.PodDisruptionBudget
	// PVCs, PVs and StorageClasses say where pods with persistent volumes may run. PVCs holds the
	// claims of the manifests and those their StatefulSets' volumeClaimTemplates would make.
	PVCs           []*corev1.PersistentVolumeClaim
	PVs            []*corev1.PersistentVolume
	StorageClasses []*storagev1.StorageClass
	// PodMetrics are readings of pods' use from metrics.k8s.io, for right-sizing; a pod may
	// have many.
	PodMetrics []*metricsv1beta1.PodMetrics
	// Notes say what was skipped or assumed, one sentence each, naming file and document.
	Notes []string
}

func (s *Set) add(other *Set) {
	s.NodePools = append(s.NodePools, other.NodePools...)
	s.NodeClaims = append(s.NodeClaims, other.NodeClaims...)
	s.EC2NodeClasses = append(s.EC2NodeClasses, other.EC2NodeClasses...)
	s.Pods = append(s.Pods, other.Pods...)
	s.Workloads = append(s.Workloads, other.Workloads...)
	s.Scalers = append(s.Scalers, other.Scalers...)
	s.DaemonSets = append(s.DaemonSets, other.DaemonSets...)
	s.Nodes = append(s.Nodes, other.Nodes...)
	s.PDBs = append(s.PDBs, other.PDBs...)
	s.PVCs = append(s.PVCs, other.PVCs...)
	s.PVs = append(s.PVs, other.PVs...)
	s.StorageClasses = append(s.StorageClasses, other.StorageClasses...)
	s.PodMetrics = append(s.PodMetrics, other.PodMetrics...)
	s.Notes = append(s.Notes, other.Notes...)
}
