// Package manifest owns loading user manifests for offline planning: files and folders of
// multi-document YAML or JSON holding NodePools, NodeClaims, EC2NodeClasses, Pods, workloads
// (Deployments, ReplicaSets, StatefulSets, Jobs, expanded into their pending pods), DaemonSets,
// Nodes and PodDisruptionBudgets. Documents are decoded strictly, defaulted and validated as an
// API server would, and every problem names its file, document, object and field.
package manifest
