package manifest

import (
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// setUID gives an object without a UID one derived from its kind, namespace and name, so that
// loading the same manifests twice gives the same UIDs.
func setUID(meta *metav1.ObjectMeta, kind string) {
	if meta.UID == "" {
		meta.UID = uidOf(kind, meta.Namespace, meta.Name)
	}
}

func uidOf(kind, namespace, name string) types.UID {
	return types.UID(uuid.NewSHA1(uuid.NameSpaceURL, []byte("nodepilot:"+kind+"/"+namespace+"/"+name)).String())
}

// setPodStatus makes a pod without a status look as the API server would show it: bound and
// running when spec.nodeName is set, else pending and marked unschedulable by the scheduler.
func setPodStatus(pod *corev1.Pod) {
	if pod.Status.Phase != "" {
		return
	}
	if pod.Spec.NodeName != "" {
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
		return
	}
	pod.Status.Phase = corev1.PodPending
	pod.Status.Conditions = []corev1.PodCondition{{
		Type:    corev1.PodScheduled,
		Status:  corev1.ConditionFalse,
		Reason:  corev1.PodReasonUnschedulable,
		Message: "no node fits this pod yet (from manifest)",
	}}
}
