package pods

import (
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Key names a pod uniquely.
func Key(p *corev1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

// IsProvisionable reports whether the provisioner must find room for the pod: kube-scheduler
// marked it Unschedulable, it is not bound or nominated, it is not a DaemonSet or mirror pod, and
// it is neither finished nor being deleted.
func IsProvisionable(p *corev1.Pod) bool {
	if p.Spec.NodeName != "" || p.Status.NominatedNodeName != "" || IsTerminal(p) || IsTerminating(p) ||
		IsOwnedByDaemonSet(p) || IsMirror(p) {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// IsTerminal reports whether the pod finished (Succeeded or Failed).
func IsTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// IsTerminating reports whether the pod is being deleted.
func IsTerminating(p *corev1.Pod) bool { return p.DeletionTimestamp != nil }

// IsActive reports whether the pod occupies its node: bound, not finished, not being deleted.
func IsActive(p *corev1.Pod) bool {
	return p.Spec.NodeName != "" && !IsTerminal(p) && !IsTerminating(p)
}

// IsOwnedByDaemonSet reports whether a DaemonSet controls the pod.
func IsOwnedByDaemonSet(p *corev1.Pod) bool { return controllerKind(p) == "DaemonSet" }

// IsOwnedByNode reports whether the pod is a static pod owned by its Node.
func IsOwnedByNode(p *corev1.Pod) bool { return controllerKind(p) == "Node" }

// IsMirror reports whether the pod mirrors a static pod of the kubelet.
func IsMirror(p *corev1.Pod) bool {
	_, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

func controllerKind(p *corev1.Pod) string {
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			return o.Kind
		}
	}
	return ""
}

// IsCritical reports whether the pod runs at a system-critical priority class; drains evict
// critical pods after the others.
func IsCritical(p *corev1.Pod) bool {
	switch p.Spec.PriorityClassName {
	case "system-cluster-critical", "system-node-critical":
		return true
	}
	return false
}

// DoNotDisruptUntil says until when the pod's karpenter.sh/do-not-disrupt annotation protects
// its node: forever for "true", its start plus the duration for a duration, not at all otherwise.
// ok is false when the pod carries no valid annotation.
func DoNotDisruptUntil(p *corev1.Pod) (until time.Time, forever, ok bool) {
	v, has := p.Annotations[karpv1.DoNotDisruptAnnotationKey]
	if !has {
		return time.Time{}, false, false
	}
	if v == "true" {
		return time.Time{}, true, true
	}
	d, err := doNotDisruptDuration(v)
	if err != nil {
		return time.Time{}, false, false
	}
	start := p.CreationTimestamp.Time
	if p.Status.StartTime != nil {
		start = p.Status.StartTime.Time
	}
	return start.Add(d), false, true
}

// InvalidDoNotDisrupt says why the pod's karpenter.sh/do-not-disrupt annotation is ignored: its
// value is neither "true" nor a positive duration. It is nil when the annotation is absent or valid.
func InvalidDoNotDisrupt(p *corev1.Pod) error {
	v, has := p.Annotations[karpv1.DoNotDisruptAnnotationKey]
	if !has || v == "true" {
		return nil
	}
	_, err := doNotDisruptDuration(v)
	return err
}

func doNotDisruptDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("failed to parse %q as a duration: %w", v, err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("duration %q must be positive", v)
	}
	return d, nil
}

// BlocksDisruption reports whether the pod's do-not-disrupt annotation is in force at now.
func BlocksDisruption(p *corev1.Pod, now time.Time) bool {
	if IsTerminal(p) || IsTerminating(p) {
		return false
	}
	until, forever, ok := DoNotDisruptUntil(p)
	return ok && (forever || now.Before(until))
}

// UntoleratedTaint returns the first taint the tolerations do not tolerate, or nil, with
// Kubernetes's own predicate; when only is not nil, the taints it rejects are passed over.
// Comparison operators (Gt, Lt on numeric taint values) are on, as in Kubernetes 1.35+. The
// scheduler, the provisioner's view of existing nodes and the drain all ask this one question.
func UntoleratedTaint(tolerations []corev1.Toleration, taints []corev1.Taint, only func(*corev1.Taint) bool) *corev1.Taint {
	t, found := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), taints, tolerations, only, true)
	if !found {
		return nil
	}
	return &t
}

// Repels reports whether a taint keeps pods that do not tolerate it off the node (NoSchedule,
// NoExecute), as opposed to only discouraging them (PreferNoSchedule).
func Repels(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// IsEvictable reports whether a drain must evict the pod: active, not a mirror or node-owned
// static pod (they cannot be evicted), and not tolerating the disrupted taint (it would come back).
func IsEvictable(p *corev1.Pod) bool {
	if !IsActive(p) || IsMirror(p) || IsOwnedByNode(p) {
		return false
	}
	return UntoleratedTaint(p.Spec.Tolerations, []corev1.Taint{karpv1.DisruptedNoScheduleTaint()}, nil) != nil
}

// IsRescheduled reports whether disrupting its node moves the pod to another: a drain evicts it
// and no DaemonSet runs it per node.
func IsRescheduled(p *corev1.Pod) bool { return IsEvictable(p) && !IsOwnedByDaemonSet(p) }

// Requests is what the pod asks of a node (containers, init containers and sidecars, overhead),
// as admitted by the API server: a container's limit stands for a request it leaves out, the way
// the API server defaults it. Pods from the API server are already defaulted; pods read from
// manifests (plan) and GPU pods written with only limits: nvidia.com/gpu would otherwise count
// as asking for nothing.
func Requests(p *corev1.Pod) corev1.ResourceList {
	if needsLimitDefaults(p) {
		p = p.DeepCopy()
		for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
			for i := range cs {
				r := &cs[i].Resources
				for name, limit := range r.Limits {
					if _, ok := r.Requests[name]; !ok {
						if r.Requests == nil {
							r.Requests = corev1.ResourceList{}
						}
						r.Requests[name] = limit.DeepCopy()
					}
				}
			}
		}
	}
	return resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
}

// needsLimitDefaults reports whether some container has a limit without its request.
func needsLimitDefaults(p *corev1.Pod) bool {
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, c := range cs {
			for name := range c.Resources.Limits {
				if _, ok := c.Resources.Requests[name]; !ok {
					return true
				}
			}
		}
	}
	return false
}

// ClaimName is the PersistentVolumeClaim a volume of p mounts: the claim it names, or for a
// generic ephemeral volume the claim its pod gets, named <pod>-<volume>. ok is false for a
// volume that mounts no claim.
func ClaimName(p *corev1.Pod, v corev1.Volume) (name string, ok bool) {
	switch {
	case v.PersistentVolumeClaim != nil:
		return v.PersistentVolumeClaim.ClaimName, true
	case v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil:
		return p.Name + "-" + v.Name, true
	}
	return "", false
}

// MountsClaim reports whether some volume of p mounts a PersistentVolumeClaim (ClaimName).
func MountsClaim(p *corev1.Pod) bool {
	return slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool {
		_, ok := ClaimName(p, v)
		return ok
	})
}
