package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// KubeletConfiguration is the subset of the kubelet's configuration that an EC2NodeClass may
// set, with the upstream kubelet's names.
type KubeletConfiguration struct {
	// ClusterDNS are the IP addresses of the cluster DNS servers.
	// +optional
	ClusterDNS []string `json:"clusterDNS,omitempty"`
	// MaxPods overrides the most pods a node may run.
	// +kubebuilder:validation:Minimum:=0
	// +optional
	MaxPods *int32 `json:"maxPods,omitempty"`
	// PodsPerCore caps pods per CPU core (never above MaxPods).
	// +kubebuilder:validation:Minimum:=0
	// +optional
	PodsPerCore *int32 `json:"podsPerCore,omitempty"`
	// SystemReserved reserves resources (cpu, memory, ephemeral-storage, pid) for the OS.
	// +kubebuilder:validation:XValidation:rule="self.all(x, x == 'cpu' || x == 'memory' || x == 'ephemeral-storage' || x == 'pid')",message="valid keys for systemReserved are ['cpu','memory','ephemeral-storage','pid']"
	// +kubebuilder:validation:XValidation:rule="self.all(x, !self[x].startsWith('-'))",message="systemReserved value cannot be a negative resource quantity"
	// +optional
	SystemReserved map[string]string `json:"systemReserved,omitempty"`
	// KubeReserved reserves resources (cpu, memory, ephemeral-storage, pid) for Kubernetes
	// system components.
	// +kubebuilder:validation:XValidation:rule="self.all(x, x == 'cpu' || x == 'memory' || x == 'ephemeral-storage' || x == 'pid')",message="valid keys for kubeReserved are ['cpu','memory','ephemeral-storage','pid']"
	// +kubebuilder:validation:XValidation:rule="self.all(x, !self[x].startsWith('-'))",message="kubeReserved value cannot be a negative resource quantity"
	// +optional
	KubeReserved map[string]string `json:"kubeReserved,omitempty"`
	// EvictionHard maps eviction signals to hard eviction thresholds.
	// +kubebuilder:validation:XValidation:rule="self.all(x, x in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="valid keys for evictionHard are ['memory.available','nodefs.available','nodefs.inodesFree','imagefs.available','imagefs.inodesFree','pid.available']"
	// +optional
	EvictionHard map[string]string `json:"evictionHard,omitempty"`
	// EvictionSoft maps eviction signals to soft eviction thresholds.
	// +kubebuilder:validation:XValidation:rule="self.all(x, x in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="valid keys for evictionSoft are ['memory.available','nodefs.available','nodefs.inodesFree','imagefs.available','imagefs.inodesFree','pid.available']"
	// +optional
	EvictionSoft map[string]string `json:"evictionSoft,omitempty"`
	// EvictionSoftGracePeriod maps eviction signals to how long a soft threshold must hold.
	// +kubebuilder:validation:XValidation:rule="self.all(x, x in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="valid keys for evictionSoftGracePeriod are ['memory.available','nodefs.available','nodefs.inodesFree','imagefs.available','imagefs.inodesFree','pid.available']"
	// +optional
	EvictionSoftGracePeriod map[string]metav1.Duration `json:"evictionSoftGracePeriod,omitempty"`
	// EvictionMaxPodGracePeriod is the longest grace period (seconds) given to pods evicted on a
	// soft threshold.
	// +optional
	EvictionMaxPodGracePeriod *int32 `json:"evictionMaxPodGracePeriod,omitempty"`
	// ImageGCHighThresholdPercent is the disk usage above which image garbage collection always
	// runs; above ImageGCLowThresholdPercent.
	// +kubebuilder:validation:Minimum:=0
	// +kubebuilder:validation:Maximum:=100
	// +optional
	ImageGCHighThresholdPercent *int32 `json:"imageGCHighThresholdPercent,omitempty"`
	// ImageGCLowThresholdPercent is the disk usage below which image garbage collection never
	// runs.
	// +kubebuilder:validation:Minimum:=0
	// +kubebuilder:validation:Maximum:=100
	// +optional
	ImageGCLowThresholdPercent *int32 `json:"imageGCLowThresholdPercent,omitempty"`
	// CPUCFSQuota enables CPU CFS quota enforcement for containers with CPU limits.
	// +optional
	CPUCFSQuota *bool `json:"cpuCFSQuota,omitempty"`
}
