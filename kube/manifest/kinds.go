package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// handler decodes and adds one kind of object.
type handler struct {
	// newObject returns an empty object to decode into.
	newObject func() interface{}
	// add defaults and validates the decoded object and adds it (or its pods) to the set.
	add func(ctx *addContext, obj interface{})
}

// lookupHandler returns the handler of a kind planning uses.
func lookupHandler(apiVersion, kind string) (handler, bool) {
	switch apiVersion + " " + kind {
	case "karpenter.sh/v1 NodePool":
		return handler{func() interface{} { return &karpv1.NodePool{} }, addNodePool}, true
	case "karpenter.sh/v1 NodeClaim":
		return handler{func() interface{} { return &karpv1.NodeClaim{} }, addNodeClaim}, true
	case "karpenter.k8s.aws/v1 EC2NodeClass":
		return handler{func() interface{} { return &awsv1.EC2NodeClass{} }, addEC2NodeClass}, true
	case "v1 Pod":
		return handler{func() interface{} { return &corev1.Pod{} }, addPod}, true
	case "v1 Node":
		return handler{func() interface{} { return &corev1.Node{} }, addNode}, true
	case "v1 PersistentVolume":
		return handler{func() interface{} { return &corev1.PersistentVolume{} }, addPV}, true
	case "v1 PersistentVolumeClaim":
		return handler{func() interface{} { return &corev1.PersistentVolumeClaim{} }, addPVC}, true
	case "storage.k8s.io/v1 StorageClass":
		return handler{func() interface{} { return &storagev1.StorageClass{} }, addStorageClass}, true
	case "apps/v1 Deployment":
		return handler{func() interface{} { return &appsv1.Deployment{} }, addDeployment}, true
	case "apps/v1 ReplicaSet":
		return handler{func() interface{} { return &appsv1.ReplicaSet{} }, addReplicaSet}, true
	case "apps/v1 StatefulSet":
		return handler{func() interface{} { return &appsv1.StatefulSet{} }, addStatefulSet}, true
	case "apps/v1 DaemonSet":
		return handler{func() interface{} { return &appsv1.DaemonSet{} }, addDaemonSet}, true
	case "batch/v1 Job":
		return handler{func() interface{} { return &batchv1.Job{} }, addJob}, true
	case "policy/v1 PodDisruptionBudget":
		return handler{func() interface{} { return &policyv1.PodDisruptionBudget{} }, addPDB}, true
	case "autoscaling/v2 HorizontalPodAutoscaler":
		return handler{func() interface{} { return &autoscalingv2.HorizontalPodAutoscaler{} }, addHPA}, true
	case "keda.sh/v1alpha1 ScaledObject":
		return handler{func() interface{} { return &ScaledObject{} }, addScaledObject}, true
	case "metrics.k8s.io/v1beta1 PodMetrics":
		return handler{func() interface{} { return &metricsv1beta1.PodMetrics{} }, addPodMetrics}, true
	}
	return handler{}, false
}

// supportedVersion returns the apiVersion planning reads a kind in, for kinds it reads.
func supportedVersion(kind string) (string, bool) {
	switch kind {
	case "NodePool", "NodeClaim":
		return "karpenter.sh/v1", true
	case "EC2NodeClass":
		return "karpenter.k8s.aws/v1", true
	case "Pod", "Node", "PersistentVolume", "PersistentVolumeClaim":
		return "v1", true
	case "StorageClass":
		return "storage.k8s.io/v1", true
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		return "apps/v1", true
	case "Job":
		return "batch/v1", true
	case "PodDisruptionBudget":
		return "policy/v1", true
	case "HorizontalPodAutoscaler":
		return "autoscaling/v2", true
	case "ScaledObject":
		return "keda.sh/v1alpha1", true
	case "PodMetrics":
		return "metrics.k8s.io/v1beta1", true
	}
	return "", false
}
