package manifest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// addPodMetrics keeps one reading of a pod's use from metrics.k8s.io (`kubectl get --raw
// /apis/metrics.k8s.io/v1beta1/pods` writes a PodMetricsList of them). A pod may be read many
// times: each reading is a sample of its use, so none is refused as a duplicate.
func addPodMetrics(c *addContext, obj interface{}) {
	pm := obj.(*metricsv1beta1.PodMetrics)
	errs := validateMeta(&pm.ObjectMeta, true)
	containers := field.NewPath("containers")
	if len(pm.Containers) == 0 {
		errs = append(errs, field.Required(containers, "a reading names at least one container"))
	}
	for i, ct := range pm.Containers {
		at := containers.Index(i)
		if ct.Name == "" {
			errs = append(errs, field.Required(at.Child("name"), "a container reading names its container"))
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			switch q, ok := ct.Usage[r]; {
			case !ok:
				errs = append(errs, field.Required(at.Child("usage", string(r)), "metrics.k8s.io reports cpu and memory"))
			case q.Sign() < 0:
				errs = append(errs, field.Invalid(at.Child("usage", string(r)), q.String(), "must not be negative"))
			}
		}
	}
	if c.fail(errs) {
		return
	}
	c.set.PodMetrics = append(c.set.PodMetrics, pm)
}
