package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validEC2NodeClass returns a defaulted EC2NodeClass that passes validation.
func validEC2NodeClass() *EC2NodeClass {
	size := resource.MustParse("100Gi")
	nc := &EC2NodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: EC2NodeClassSpec{
			Role:                       "KarpenterNodeRole",
			AMISelectorTerms:           []AMISelectorTerm{{Alias: "al2023@latest"}},
			SubnetSelectorTerms:        []SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
			SecurityGroupSelectorTerms: []SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
			BlockDeviceMappings: []*BlockDeviceMapping{{
				DeviceName: ptr("/dev/xvda"),
				EBS:        &BlockDevice{VolumeSize: &size, VolumeType: ptr("gp3")},
			}},
			Tags: map[string]string{"team": "platform"},
		},
	}
	nc.SetDefaults()
	return nc
}

// messages renders errors as "path: detail", the way the manifest loader reports them.
func messages(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Detail)
	}
	return out
}
