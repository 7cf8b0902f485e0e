package rightsizing

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Key names a workload: the controller of a pod (a ReplicaSet's Deployment), or the pod alone.
type Key struct{ Kind, Namespace, Name string }

func (k Key) String() string { return k.Kind + " " + k.Namespace + "/" + k.Name }

// WorkloadOf is the workload a pod belongs to. A ReplicaSet that a Deployment made (its name is
// the Deployment's and the pod-template-hash) counts as the Deployment, which is what a user
// edits.
func WorkloadOf(p *corev1.Pod) Key {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return Key{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
	}
	if ref.Kind == "ReplicaSet" {
		if h := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; h != "" && strings.HasSuffix(ref.Name, "-"+h) {
			return Key{Kind: "Deployment", Namespace: p.Namespace, Name: strings.TrimSuffix(ref.Name, "-"+h)}
		}
	}
	return Key{Kind: ref.Kind, Namespace: p.Namespace, Name: ref.Name}
}
