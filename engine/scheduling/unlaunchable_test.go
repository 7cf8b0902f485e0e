package scheduling

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func TestUnlaunchable(t *testing.T) {
	ref := func(group, kind, name string) *karpv1.NodeClassReference {
		return &karpv1.NodeClassReference{Group: group, Kind: kind, Name: name}
	}
	three := int64(3)
	now := metav1.Now()
	exists := func(name string) bool { return name == "default" }
	for _, tc := range []struct {
		name     string
		ref      *karpv1.NodeClassReference
		replicas *int64
		deleting bool
		class    schema.GroupKind // the cloud provider's node class; EC2NodeClass when empty
		code     string           // "" when it can launch
		want     []string         // parts of the message and hint
	}{
		{name: "launches", ref: ref(awsv1.Group, awsv1.KindEC2NodeClass, "default")},
		{name: "missing EC2NodeClass", ref: ref(awsv1.Group, awsv1.KindEC2NodeClass, "gpu"), code: ReasonNodeClassNotFound,
			want: []string{`NodePool "np" references EC2NodeClass "gpu", which does not exist`, `create EC2NodeClass "gpu"`, "spec.template.spec.nodeClassRef"}},
		{name: "no nodeClassRef", code: ReasonNodeClassNotFound, want: []string{`NodePool "np" has no spec.template.spec.nodeClassRef`}},
		{name: "another kind", ref: ref(awsv1.Group, "AKSNodeClass", "default"), code: ReasonNodeClassNotFound,
			want: []string{`references a AKSNodeClass "default", not an EC2NodeClass of karpenter.k8s.aws`, "kind: EC2NodeClass"}},
		{name: "another group", ref: ref("example.com", awsv1.KindEC2NodeClass, "default"), code: ReasonNodeClassNotFound,
			want: []string{"group: karpenter.k8s.aws"}},
		{name: "static", ref: ref(awsv1.Group, awsv1.KindEC2NodeClass, "default"), replicas: &three, code: ReasonStaticNodePool,
			want: []string{"static (replicas: 3)", "launches none for pods"}},
		{name: "static without its EC2NodeClass", ref: ref(awsv1.Group, awsv1.KindEC2NodeClass, "gpu"), replicas: &three, code: ReasonNodeClassNotFound,
			want: []string{`EC2NodeClass "gpu", which does not exist`}},
		// another cloud provider's node class: its kind in the words, never EC2NodeClass
		{name: "another provider's class", ref: ref("karpenter.azure.com", "AKSNodeClass", "default"),
			class: schema.GroupKind{Group: "karpenter.azure.com", Kind: "AKSNodeClass"}},
		{name: "another provider's class missing", ref: ref("karpenter.azure.com", "AKSNodeClass", "gpu"),
			class: schema.GroupKind{Group: "karpenter.azure.com", Kind: "AKSNodeClass"}, code: ReasonNodeClassNotFound,
			want: []string{`references AKSNodeClass "gpu", which does not exist`, `create AKSNodeClass "gpu"`}},
		{name: "an EC2NodeClass where another provider runs", ref: ref(awsv1.Group, awsv1.KindEC2NodeClass, "default"),
			class: schema.GroupKind{Group: "karpenter.azure.com", Kind: "AKSNodeClass"}, code: ReasonNodeClassNotFound,
			want: []string{`references a EC2NodeClass "default", not an AKSNodeClass of karpenter.azure.com`}},
		{name: "being deleted", ref: ref(awsv1.Group, awsv1.KindEC2NodeClass, "gpu"), deleting: true, code: ReasonNodePoolDeleting,
			want: []string{`NodePool "np" is being deleted`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "np"}}
			np.Spec.Template.Spec.NodeClassRef, np.Spec.Replicas = tc.ref, tc.replicas
			if tc.deleting {
				np.DeletionTimestamp = &now
			}
			class := tc.class
			if class.Empty() {
				class = awsv1.EC2NodeClassGroupKind()
			}
			r, ok := Unlaunchable(np, class, exists)
			if ok != (tc.code != "") || r.Code != tc.code {
				t.Fatalf("Unlaunchable = %+v, %v; want code %q", r, ok, tc.code)
			}
			if ok && r.NodePool != "np" {
				t.Errorf("reason for NodePool %q, want np", r.NodePool)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Message+" / "+r.Hint, w) {
					t.Errorf("%q / %q lacks %q", r.Message, r.Hint, w)
				}
			}
		})
	}
}

// TestUnlaunchableExplained: a pod that fits nowhere names each NodePool that cannot launch, and
// "no NodePool exists" is said only when none does.
func TestUnlaunchableExplained(t *testing.T) {
	broken := InstanceTypesFailed("gpu", errors.New("throttled"))
	for _, tc := range []struct {
		name  string
		in    *Input
		codes []string
	}{
		{"only a broken NodePool", &Input{Unlaunchable: []Reason{broken}}, []string{ReasonInstanceTypesFailed}},
		{"a NodePool too small and a broken one", &Input{NodePools: []NodePool{pool("small", 0, syntheticTypes(1))}, Unlaunchable: []Reason{broken}},
			[]string{ReasonInsufficientResources, ReasonInstanceTypesFailed}},
		{"none at all", &Input{}, []string{ReasonNoNodePool}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Pods = pods(1, "p", "64", "")
			r := Solve(tc.in)
			if len(r.Unschedulable) != 1 {
				t.Fatalf("%d unschedulable, want 1", len(r.Unschedulable))
			}
			var codes []string
			for _, reason := range r.Unschedulable[0].Reasons {
				codes = append(codes, reason.Code)
			}
			if strings.Join(codes, ",") != strings.Join(tc.codes, ",") {
				t.Errorf("reasons %v, want %v", codes, tc.codes)
			}
		})
	}
}
