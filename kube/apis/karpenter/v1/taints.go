package v1

import corev1 "k8s.io/api/core/v1"

// Taint keys of karpenter.sh.
const (
	// DisruptedTaintKey marks a node that is being disrupted.
	DisruptedTaintKey = Group + "/disrupted"
	// UnregisteredTaintKey marks a node that has not yet registered for its NodeClaim.
	UnregisteredTaintKey = Group + "/unregistered"
)

// DisruptedNoScheduleTaint returns the taint put on a node being disrupted so that no new pods
// schedule to it.
func DisruptedNoScheduleTaint() corev1.Taint {
	return corev1.Taint{Key: DisruptedTaintKey, Effect: corev1.TaintEffectNoSchedule}
}

// UnregisteredNoExecuteTaint returns the taint a node carries until it registers.
func UnregisteredNoExecuteTaint() corev1.Taint {
	return corev1.Taint{Key: UnregisteredTaintKey, Effect: corev1.TaintEffectNoExecute}
}

// IsDisruptedTaint reports whether t is the disrupted taint.
func IsDisruptedTaint(t corev1.Taint) bool {
	return t.Key == DisruptedTaintKey && t.Effect == corev1.TaintEffectNoSchedule
}
