package kube_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// createNamespace creates a namespace for one subtest.
func createNamespace(t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// testPod is a pod of one pause container requesting cpu.
func testPod(namespace, name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:      "app",
			Image:     "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
		}}},
	}
}

// testNodeClaim is a NodeClaim named by generateName from prefix, owned by the NodePool pool, with
// the termination finalizer, as the provisioner creates them.
func testNodeClaim(prefix string, pool *karpv1.NodePool) *karpv1.NodeClaim {
	controller := true
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: prefix,
			Labels:       map[string]string{karpv1.NodePoolLabelKey: pool.Name},
			Finalizers:   []string{karpv1.TerminationFinalizer},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: karpv1.SchemeGroupVersion.String(), Kind: karpv1.KindNodePool,
				Name: pool.Name, UID: pool.UID, Controller: &controller, BlockOwnerDeletion: &controller,
			}},
		},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{
				Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"},
			}},
		},
	}
}
