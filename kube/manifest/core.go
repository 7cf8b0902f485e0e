package manifest

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// defaultNamespace is the namespace of namespaced objects that name none.
const defaultNamespace = "default"

// validateMeta checks the name of an object and defaults its namespace when namespaced.
func validateMeta(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	if namespaced && meta.Namespace == "" {
		meta.Namespace = defaultNamespace
	}
	if meta.Name == "" {
		return field.ErrorList{field.Required(field.NewPath("metadata", "name"), "a name is required")}
	}
	return nil
}

func addPod(c *addContext, obj interface{}) {
	pod := obj.(*corev1.Pod)
	if c.fail(validateMeta(&pod.ObjectMeta, true)) || c.failAsAPIServer(validatePodSpec(&pod.Spec, field.NewPath("spec"))) ||
		!c.claim("Pod", pod.Namespace, pod.Name) {
		return
	}
	if !c.state.reservePods(c, 1) {
		return
	}
	setUID(&pod.ObjectMeta, "Pod")
	setPodStatus(pod)
	c.set.Pods = append(c.set.Pods, pod)
}

func addNode(c *addContext, obj interface{}) {
	node := obj.(*corev1.Node)
	if c.fail(validateMeta(&node.ObjectMeta, false)) || !c.claim("Node", "", node.Name) {
		return
	}
	setUID(&node.ObjectMeta, "Node")
	c.set.Nodes = append(c.set.Nodes, node)
}

func addDaemonSet(c *addContext, obj interface{}) {
	ds := obj.(*appsv1.DaemonSet)
	if c.fail(validateMeta(&ds.ObjectMeta, true)) || c.failAsAPIServer(validatePodSpec(&ds.Spec.Template.Spec, templateSpecPath)) ||
		!c.claim("DaemonSet", ds.Namespace, ds.Name) {
		return
	}
	setUID(&ds.ObjectMeta, "DaemonSet")
	c.set.DaemonSets = append(c.set.DaemonSets, ds)
}

func addPDB(c *addContext, obj interface{}) {
	pdb := obj.(*policyv1.PodDisruptionBudget)
	errs := validateMeta(&pdb.ObjectMeta, true)
	if pdb.Spec.MinAvailable != nil && pdb.Spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec"), "minAvailable and maxUnavailable", "set one of minAvailable and maxUnavailable, not both"))
	}
	if c.fail(errs) || !c.claim("PodDisruptionBudget", pdb.Namespace, pdb.Name) {
		return
	}
	setUID(&pdb.ObjectMeta, "PodDisruptionBudget")
	c.set.PDBs = append(c.set.PDBs, pdb)
}

// reservePods counts n more pods against the Load's bound; it reports false (and an error) when
// they would exceed it.
func (s *loadState) reservePods(c *addContext, n int) bool {
	if s.pods+n > maxPods {
		c.errs.add(c.document, c.object, fmt.Errorf("%d more pods would exceed the %d pods one plan holds", n, maxPods))
		return false
	}
	s.pods += n
	return true
}
