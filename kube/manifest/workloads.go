package manifest

import (
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// templateSpecPath is where a workload's pod spec is.
var templateSpecPath = field.NewPath("spec", "template", "spec")

// workload is what expanding a controller into pods needs.
type workload struct {
	apiVersion, kind string
	meta             *metav1.ObjectMeta
	template         *corev1.PodTemplateSpec
	// count is the number of pods, or nil for the default of 1.
	count *int32
	// countField is the path of count, for messages.
	countField *field.Path
	// claims are a StatefulSet's volumeClaimTemplates.
	claims []corev1.PersistentVolumeClaim
}

func addDeployment(c *addContext, obj interface{}) {
	d := obj.(*appsv1.Deployment)
	expand(c, workload{"apps/v1", "Deployment", &d.ObjectMeta, &d.Spec.Template, d.Spec.Replicas, field.NewPath("spec", "replicas"), nil})
}

func addReplicaSet(c *addContext, obj interface{}) {
	rs := obj.(*appsv1.ReplicaSet)
	expand(c, workload{"apps/v1", "ReplicaSet", &rs.ObjectMeta, &rs.Spec.Template, rs.Spec.Replicas, field.NewPath("spec", "replicas"), nil})
}

func addStatefulSet(c *addContext, obj interface{}) {
	ss := obj.(*appsv1.StatefulSet)
	expand(c, workload{"apps/v1", "StatefulSet", &ss.ObjectMeta, &ss.Spec.Template, ss.Spec.Replicas, field.NewPath("spec", "replicas"), ss.Spec.VolumeClaimTemplates})
}

// addJob expands a Job into the pods it runs at once: parallelism (default 1), at most the
// completions when those are set.
func addJob(c *addContext, obj interface{}) {
	job := obj.(*batchv1.Job)
	count := job.Spec.Parallelism
	if count != nil && job.Spec.Completions != nil && *job.Spec.Completions >= 0 && *job.Spec.Completions < *count {
		count = job.Spec.Completions
	}
	expand(c, workload{"batch/v1", "Job", &job.ObjectMeta, &job.Spec.Template, count, field.NewPath("spec", "parallelism"), nil})
}

// expand adds a workload and its pods, named <workload>-<i> from 0, in the workload's namespace,
// with the template's labels, annotations and spec and the workload as controller owner.
func expand(c *addContext, w workload) {
	errs := validateMeta(w.meta, true)
	n := int32(1)
	if w.count != nil {
		n = *w.count
	}
	if n < 0 {
		errs = append(errs, field.Invalid(w.countField, n, fmt.Sprintf("must be 0 or more, got %d", n)))
	}
	if c.fail(errs) || c.failAsAPIServer(validatePodSpec(&w.template.Spec, templateSpecPath)) || !c.claim(w.kind, w.meta.Namespace, w.meta.Name) || !c.state.reservePods(c, int(n)) {
		return
	}
	setUID(w.meta, w.kind)
	wl := &Workload{Kind: w.kind, Namespace: w.meta.Namespace, Name: w.meta.Name, Replicas: n, apiVersion: w.apiVersion, uid: w.meta.UID, template: w.template,
		claims: w.claims}
	c.set.Workloads = append(c.set.Workloads, wl)
	for i := range n {
		pod := wl.pod(i)
		if !c.claim("Pod", pod.Namespace, pod.Name) {
			continue
		}
		c.set.Pods = append(c.set.Pods, pod)
	}
}

// Workload is a Deployment, ReplicaSet, StatefulSet or Job of the manifests.
type Workload struct {
	Kind, Namespace, Name string
	// Replicas is how many pods it runs as written.
	Replicas int32

	apiVersion string
	uid        types.UID
	template   *corev1.PodTemplateSpec
	// claims are a StatefulSet's volumeClaimTemplates: each pod mounts a claim of its own made
	// from each.
	claims []corev1.PersistentVolumeClaim
}

func (w *Workload) String() string { return w.Kind + " " + w.Name }

// pod is its pod number i, pending as the API server would show it.
func (w *Workload) pod(i int32) *corev1.Pod {
	controller := true
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        fmt.Sprintf("%s-%d", w.Name, i),
			Namespace:   w.Namespace,
			Labels:      maps.Clone(w.template.Labels),
			Annotations: maps.Clone(w.template.Annotations),
			OwnerReferences: []metav1.OwnerReference{
				{APIVersion: w.apiVersion, Kind: w.Kind, Name: w.Name, UID: w.uid, Controller: &controller}},
		},
		Spec: *w.template.Spec.DeepCopy(),
	}
	for _, t := range w.claims {
		// The StatefulSet controller's volume for the template replaces one of the same name.
		vol := corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimOf(t.Name, pod.Name)}}}
		if i := slices.IndexFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == t.Name }); i >= 0 {
			pod.Spec.Volumes[i] = vol
		} else {
			pod.Spec.Volumes = append(pod.Spec.Volumes, vol)
		}
	}
	setUID(&pod.ObjectMeta, "Pod")
	setPodStatus(pod)
	return pod
}

// workload finds a workload by kind, namespace and name.
func (s *Set) workload(kind, namespace, name string) *Workload {
	for _, w := range s.Workloads {
		if w.Kind == kind && w.Namespace == namespace && w.Name == name {
			return w
		}
	}
	return nil
}

// claimOf names the claim a StatefulSet's controller makes from a volumeClaimTemplate for a pod.
func claimOf(template, pod string) string { return template + "-" + pod }
