package v1

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// testCABundle stands for a cluster's CA bundle, which the hash covers.
const testCABundle = "Y2EtYnVuZGxl"

func TestHash(t *testing.T) {
	base := Hash(validEC2NodeClass(), testCABundle)
	if base != Hash(validEC2NodeClass(), testCABundle) {
		t.Fatal("Hash is not stable")
	}
	if Hash(validEC2NodeClass(), "b3RoZXI=") == base {
		t.Error("another cluster's CA bundle gave the same hash")
	}
	tests := []struct {
		name    string
		mutate  func(nc *EC2NodeClass)
		changes bool
	}{
		{"role", func(nc *EC2NodeClass) { nc.Spec.Role = "other" }, true},
		{"tags", func(nc *EC2NodeClass) { nc.Spec.Tags["team"] = "data" }, true},
		{"user data", func(nc *EC2NodeClass) { nc.Spec.UserData = ptr("#!/bin/sh") }, true},
		{"volume size", func(nc *EC2NodeClass) {
			size := resource.MustParse("200Gi")
			nc.Spec.BlockDeviceMappings[0].EBS.VolumeSize = &size
		}, true},
		{"metadata options", func(nc *EC2NodeClass) { nc.Spec.MetadataOptions.HTTPPutResponseHopLimit = ptr(int64(2)) }, true},
		{"kubelet", func(nc *EC2NodeClass) { nc.Spec.Kubelet = &KubeletConfiguration{MaxPods: ptr(int32(58))} }, true},
		{"alias family", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "bottlerocket@latest" }, true},
		{"alias version", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "al2023@v20240625" }, false},
		{"amiFamily equal to the alias'", func(nc *EC2NodeClass) { nc.Spec.AMIFamily = ptr(AMIFamilyAL2023) }, false},
		{"subnet selector", func(nc *EC2NodeClass) { nc.Spec.SubnetSelectorTerms[0].Tags["x"] = "y" }, false},
		{"security group selector", func(nc *EC2NodeClass) { nc.Spec.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{ID: "sg-1"}} }, false},
		{"status", func(nc *EC2NodeClass) { nc.Status.InstanceProfile = "p" }, false},
		{"block device order", func(nc *EC2NodeClass) {
			extra := &BlockDeviceMapping{DeviceName: ptr("/dev/xvdb"), EBS: &BlockDevice{SnapshotID: ptr("snap-1")}}
			other := validEC2NodeClass()
			other.Spec.BlockDeviceMappings = append(other.Spec.BlockDeviceMappings, extra)
			nc.Spec.BlockDeviceMappings = append([]*BlockDeviceMapping{extra}, nc.Spec.BlockDeviceMappings...)
			if Hash(nc, testCABundle) != Hash(other, testCABundle) {
				t.Error("block device mapping order changed the hash")
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := validEC2NodeClass()
			tt.mutate(nc)
			if changed := Hash(nc, testCABundle) != base; changed != tt.changes {
				t.Errorf("hash changed = %v, want %v", changed, tt.changes)
			}
		})
	}
}

func TestHashDoesNotModify(t *testing.T) {
	nc := validEC2NodeClass()
	before := nc.DeepCopy()
	Hash(nc, testCABundle)
	if nc.Spec.AMIFamily != nil || len(nc.Spec.SubnetSelectorTerms) != len(before.Spec.SubnetSelectorTerms) {
		t.Error("Hash modified its argument")
	}
}
