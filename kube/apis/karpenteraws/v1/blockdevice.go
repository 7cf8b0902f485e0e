package v1

import "k8s.io/apimachinery/pkg/api/resource"

// BlockDeviceMapping attaches a block device to launched instances.
type BlockDeviceMapping struct {
	// DeviceName is the device name, such as /dev/xvda.
	// +optional
	DeviceName *string `json:"deviceName,omitempty"`
	// EBS configures the EBS volume of the device.
	// +kubebuilder:validation:XValidation:rule="has(self.snapshotID) || has(self.volumeSize)",message="an ebs volume needs snapshotID or volumeSize"
	// +kubebuilder:validation:XValidation:rule="!has(self.volumeInitializationRate) || (has(self.snapshotID) && self.snapshotID != '')",message="volumeInitializationRate needs snapshotID"
	// +optional
	EBS *BlockDevice `json:"ebs,omitempty"`
	// RootVolume marks the device holding the kubelet root directory; at most one may.
	// +optional
	RootVolume bool `json:"rootVolume,omitempty"`
}

// BlockDevice is an EBS volume.
type BlockDevice struct {
	// DeleteOnTermination deletes the volume when the instance terminates.
	// +optional
	DeleteOnTermination *bool `json:"deleteOnTermination,omitempty"`
	// Encrypted encrypts the volume.
	// +optional
	Encrypted *bool `json:"encrypted,omitempty"`
	// IOPS is the provisioned I/O operations per second (io1, io2, gp3).
	// +optional
	IOPS *int64 `json:"iops,omitempty"`
	// KMSKeyID is the KMS key (id, alias or ARN) encrypting the volume.
	// +optional
	KMSKeyID *string `json:"kmsKeyID,omitempty"`
	// SnapshotID is the EBS snapshot the volume is created from.
	// +optional
	SnapshotID *string `json:"snapshotID,omitempty"`
	// Throughput is the provisioned throughput of a gp3 volume in MiB/s.
	// +optional
	Throughput *int64 `json:"throughput,omitempty"`
	// VolumeInitializationRate is the rate (MiB/s, 100 to 300) at which a volume created from a
	// snapshot is initialized.
	// +kubebuilder:validation:Minimum:=100
	// +kubebuilder:validation:Maximum:=300
	// +optional
	VolumeInitializationRate *int32 `json:"volumeInitializationRate,omitempty"`
	// VolumeSize is the size of the volume in Gi, G, Ti or T.
	// +kubebuilder:validation:Pattern:="^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$"
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type:=string
	// +optional
	VolumeSize *resource.Quantity `json:"volumeSize,omitempty" hash:"string"`
	// VolumeType is the EBS volume type.
	// +kubebuilder:validation:Enum:={standard,io1,io2,gp2,sc1,st1,gp3}
	// +optional
	VolumeType *string `json:"volumeType,omitempty"`
}
