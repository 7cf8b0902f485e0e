package localcluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestNodeName(t *testing.T) {
	tests := []struct {
		region, want string
	}{
		{region: "us-east-1", want: "i-0123456789abcdef0.ec2.internal"},
		{region: "eu-west-3", want: "i-0123456789abcdef0.eu-west-3.compute.internal"},
		{region: "", want: "i-0123456789abcdef0"},
	}
	for _, tt := range tests {
		got := NodeName(Instance{ID: "i-0123456789abcdef0", Region: tt.region})
		if got != tt.want {
			t.Errorf("NodeName(region %q) = %q, want %q", tt.region, got, tt.want)
		}
		if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
			t.Errorf("NodeName(region %q) = %q is not a valid node name: %v", tt.region, got, errs)
		}
	}
}

func TestNodeFor(t *testing.T) {
	inst := Instance{
		ID: "i-0abc", Zone: "us-west-2b", Region: "us-west-2", InstanceType: "m7g.large",
		CapacityType: "spot", Arch: "arm64", OS: "linux",
		Labels: map[string]string{
			"karpenter.sh/nodepool":          "default",
			labelZone:                        "overridden",
			"karpenter.k8s.aws/instance-cpu": "2",
		},
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourcePods: resource.MustParse("29")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1930m"), corev1.ResourcePods: resource.MustParse("29")},
	}
	node := nodeFor(inst)

	if node.Name != "i-0abc.us-west-2.compute.internal" {
		t.Errorf("name = %q", node.Name)
	}
	wantLabels := map[string]string{
		"karpenter.sh/nodepool":          "default",
		"karpenter.k8s.aws/instance-cpu": "2",
		labelHostname:                    node.Name,
		labelInstanceType:                "m7g.large",
		labelZone:                        "us-west-2b",
		labelRegion:                      "us-west-2",
		labelCapacityType:                "spot",
		labelArch:                        "arm64",
		labelOS:                          "linux",
		KwokNodeLabel:                    KwokNodeValue,
		InstanceIDLabel:                  "i-0abc",
	}
	if len(node.Labels) != len(wantLabels) {
		t.Errorf("labels = %v, want %v", node.Labels, wantLabels)
	}
	for key, want := range wantLabels {
		if got := node.Labels[key]; got != want {
			t.Errorf("label %s = %q, want %q", key, got, want)
		}
	}
	if inst.Labels[labelZone] != "overridden" {
		t.Errorf("nodeFor changed the instance's labels")
	}
	if node.Spec.ProviderID != "aws:///us-west-2b/i-0abc" {
		t.Errorf("providerID = %q", node.Spec.ProviderID)
	}
	wantTaint := corev1.Taint{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0] != wantTaint {
		t.Errorf("taints = %v, want [%v]", node.Spec.Taints, wantTaint)
	}
	if got := node.Status.Allocatable[corev1.ResourceCPU]; got.MilliValue() != 1930 {
		t.Errorf("allocatable cpu = %v, want 1930m", got.String())
	}
	if got := node.Status.Capacity[corev1.ResourcePods]; got.Value() != 29 {
		t.Errorf("capacity pods = %v, want 29", got.String())
	}
	if node.Status.NodeInfo.Architecture != "arm64" {
		t.Errorf("nodeInfo.architecture = %q", node.Status.NodeInfo.Architecture)
	}
}

func TestNodeForKeepsGivenProviderIDAndSkipsEmptyValues(t *testing.T) {
	node := nodeFor(Instance{ID: "i-1", Zone: "us-east-1a", ProviderID: "aws:///us-east-1a/i-1-custom"})
	if node.Spec.ProviderID != "aws:///us-east-1a/i-1-custom" {
		t.Errorf("providerID = %q", node.Spec.ProviderID)
	}
	for _, key := range []string{labelInstanceType, labelRegion, labelCapacityType, labelArch, labelOS} {
		if value, ok := node.Labels[key]; ok {
			t.Errorf("label %s = %q set from an empty instance field", key, value)
		}
	}
}
