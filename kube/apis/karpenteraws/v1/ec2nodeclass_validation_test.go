package v1

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEC2NodeClassValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(nc *EC2NodeClass)
		want   []string
	}{
		{"valid", func(*EC2NodeClass) {}, nil},
		{"network interfaces with a primary and an efa-only", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []*NetworkInterface{{InterfaceType: InterfaceTypeInterface}, {NetworkCardIndex: 1, InterfaceType: InterfaceTypeEFAOnly}}
		}, nil},
		{"network interfaces without a primary", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []*NetworkInterface{{NetworkCardIndex: 1, InterfaceType: InterfaceTypeEFAOnly}}
		}, []string{"spec.networkInterfaces: a primary interface is required: networkCardIndex 0, deviceIndex 0, interfaceType interface"}},
		{"network interfaces sharing a card and device", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []*NetworkInterface{{InterfaceType: InterfaceTypeInterface}, {InterfaceType: InterfaceTypeInterface}}
		}, []string{"spec.networkInterfaces[1]: networkCardIndex 0 and deviceIndex 0 are used by another interface"}},
		{"placement group by name and id", func(nc *EC2NodeClass) {
			nc.Spec.PlacementGroupSelector = &PlacementGroupSelector{Name: ptr("pg"), ID: ptr("pg-1")}
		}, []string{"spec.placementGroupSelector: takes name or id, not both"}},
		{"placement group id", func(nc *EC2NodeClass) { nc.Spec.PlacementGroupSelector = &PlacementGroupSelector{ID: ptr("group-1")} },
			[]string{`spec.placementGroupSelector.id: must be a placement group id such as pg-0123abcd, got "group-1"`}},
		{"udp timeout out of range", func(nc *EC2NodeClass) { nc.Spec.ConnectionTracking = &ConnectionTracking{UDPTimeout: ptr(int32(5))} },
			[]string{"spec.connectionTracking.udpTimeout: must be between 30 and 60"}},
		{"empty connection tracking", func(nc *EC2NodeClass) { nc.Spec.ConnectionTracking = &ConnectionTracking{} },
			[]string{"spec.connectionTracking: one of tcpEstablishedTimeout, udpStreamTimeout or udpTimeout is required"}},
		{"role and instanceProfile", func(nc *EC2NodeClass) { nc.Spec.InstanceProfile = ptr("profile") },
			[]string{"spec: must specify exactly one of role and instanceProfile, got both"}},
		{"neither role nor instanceProfile", func(nc *EC2NodeClass) { nc.Spec.Role = "" },
			[]string{"spec.role: must specify exactly one of role and instanceProfile, got neither"}},
		{"instanceProfile alone is valid", func(nc *EC2NodeClass) { nc.Spec.Role, nc.Spec.InstanceProfile = "", ptr("profile") }, nil},
		{"alias without @", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "al2023" },
			[]string{`spec.amiSelectorTerms[0].alias: alias "al2023" must have the form family@version, such as al2023@latest`}},
		{"unknown alias family", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "ubuntu@latest" },
			[]string{`spec.amiSelectorTerms[0].alias: alias "ubuntu@latest" has family "ubuntu"; use al2, al2023, bottlerocket, windows2019, windows2022 or windows2025`}},
		{"pinned windows alias", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "windows2022@v1" },
			[]string{`spec.amiSelectorTerms[0].alias: alias "windows2022@v1": windows families only support version latest`}},
		{"alias with other fields and terms", func(nc *EC2NodeClass) {
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{Alias: "al2@latest", Owner: "amazon"}, {ID: "ami-123"}}
		}, []string{
			`spec.amiSelectorTerms[0]: alias cannot be combined with other fields in an amiSelectorTerm`,
			`spec.amiSelectorTerms[0].alias: an amiSelectorTerm with an alias must be the only amiSelectorTerm`,
		}},
		{"amiFamily must match alias", func(nc *EC2NodeClass) { nc.Spec.AMIFamily = ptr("Bottlerocket") },
			[]string{`spec.amiFamily: must be AL2023 or Custom with alias "al2023@latest", got "Bottlerocket"`}},
		{"Custom amiFamily with alias is valid", func(nc *EC2NodeClass) { nc.Spec.AMIFamily = ptr("Custom") }, nil},
		{"amiFamily required without alias", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-0abc"}} },
			[]string{"spec.amiFamily: amiFamily is required when no amiSelectorTerm has an alias"}},
		{"no amiSelectorTerms", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms = nil },
			[]string{
				"spec.amiSelectorTerms: at least one amiSelectorTerm is required",
				"spec.amiFamily: amiFamily is required when no amiSelectorTerm has an alias",
			}},
		{"empty selector terms", func(nc *EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{}}
			nc.Spec.SecurityGroupSelectorTerms = nil
		}, []string{
			"spec.subnetSelectorTerms[0]: a subnetSelectorTerm needs one of tags or id",
			"spec.securityGroupSelectorTerms: at least one securityGroupSelectorTerm is required",
		}},
		{"empty tag value and id with tags", func(nc *EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{Tags: map[string]string{"a": ""}, ID: "subnet-1"}}
		}, []string{
			"spec.subnetSelectorTerms[0].tags[a]: empty tag keys or values aren't supported",
			"spec.subnetSelectorTerms[0]: id cannot be combined with other fields in a subnetSelectorTerm",
		}},
		{"restricted tags", func(nc *EC2NodeClass) {
			nc.Spec.Tags = map[string]string{"kubernetes.io/cluster/demo": "owned", "karpenter.sh/nodepool": "x"}
		}, []string{
			"spec.tags[karpenter.sh/nodepool]: tag karpenter.sh/nodepool is restricted: the provider sets it",
			"spec.tags[kubernetes.io/cluster/demo]: tags starting with kubernetes.io/cluster are restricted: the provider sets them",
		}},
		{"block devices", func(nc *EC2NodeClass) {
			huge := resource.MustParse("100Ti")
			nc.Spec.BlockDeviceMappings = []*BlockDeviceMapping{
				{RootVolume: true, EBS: &BlockDevice{VolumeType: ptr("gp9"), VolumeInitializationRate: ptr(int32(50))}},
				{RootVolume: true, EBS: &BlockDevice{VolumeSize: &huge}},
			}
		}, []string{
			"spec.blockDeviceMappings[0].ebs: an ebs volume needs snapshotID or volumeSize",
			`spec.blockDeviceMappings[0].ebs.volumeType: must be one of standard, io1, io2, gp2, sc1, st1, gp3, got "gp9"`,
			"spec.blockDeviceMappings[0].ebs.volumeInitializationRate: must be between 100 and 300 MiB/s, got 50",
			"spec.blockDeviceMappings[0].ebs.snapshotID: volumeInitializationRate needs snapshotID",
			"spec.blockDeviceMappings[1].rootVolume: at most one blockDeviceMapping may be the rootVolume",
			`spec.blockDeviceMappings[1].ebs.volumeSize: must be 1Gi to 59000Gi, 1G to 64000G, 1Ti to 58Ti or 1T to 64T, got "100Ti"`,
		}},
		{"kubelet", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet = &KubeletConfiguration{
				MaxPods:                     ptr(int32(-1)),
				SystemReserved:              map[string]string{"gpu": "1", "cpu": "-100m"},
				EvictionSoft:                map[string]string{"memory.available": "5%"},
				EvictionSoftGracePeriod:     map[string]metav1.Duration{"disk.available": {}},
				ImageGCHighThresholdPercent: ptr(int32(50)),
				ImageGCLowThresholdPercent:  ptr(int32(60)),
			}
		}, []string{
			"spec.kubelet.maxPods: must be 0 or more, got -1",
			`spec.kubelet.systemReserved[cpu]: must not be negative, got "-100m"`,
			`spec.kubelet.systemReserved[gpu]: must reserve one of cpu, memory, ephemeral-storage, pid, got "gpu"`,
			`spec.kubelet.evictionSoftGracePeriod[disk.available]: must be one of memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available, got "disk.available"`,
			"spec.kubelet.evictionSoftGracePeriod[memory.available]: evictionSoft signal memory.available needs an evictionSoftGracePeriod",
			"spec.kubelet.evictionSoft[disk.available]: evictionSoftGracePeriod signal disk.available needs an evictionSoft threshold",
			"spec.kubelet.imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent (60), got 50",
		}},
		{"metadata options", func(nc *EC2NodeClass) {
			nc.Spec.MetadataOptions.HTTPTokens = ptr("sometimes")
			nc.Spec.MetadataOptions.HTTPPutResponseHopLimit = ptr(int64(65))
		}, []string{
			`spec.metadataOptions.httpTokens: must be required or optional, got "sometimes"`,
			"spec.metadataOptions.httpPutResponseHopLimit: must be between 1 and 64, got 65",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := validEC2NodeClass()
			tt.mutate(nc)
			got := messages(nc.Validate())
			if !slices.Equal(got, tt.want) {
				t.Errorf("Validate() =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
