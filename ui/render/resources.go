package render

import (
	corev1 "k8s.io/api/core/v1"
)

// PodRequests are a pod's effective CPU (millicores) and memory (bytes) requests, as the
// scheduler counts them: the larger of its containers' sum and its largest init container, plus
// its overhead.
func PodRequests(p *corev1.Pod) (cpuMilli, memBytes int64) {
	for i := range p.Spec.Containers {
		r := p.Spec.Containers[i].Resources.Requests
		cpuMilli += milli(r, corev1.ResourceCPU)
		memBytes += value(r, corev1.ResourceMemory)
	}
	for i := range p.Spec.InitContainers {
		r := p.Spec.InitContainers[i].Resources.Requests
		cpuMilli = max(cpuMilli, milli(r, corev1.ResourceCPU))
		memBytes = max(memBytes, value(r, corev1.ResourceMemory))
	}
	cpuMilli += milli(p.Spec.Overhead, corev1.ResourceCPU)
	memBytes += value(p.Spec.Overhead, corev1.ResourceMemory)
	return cpuMilli, memBytes
}

// Resources reads CPU (millicores) and memory (bytes) from a resource list.
func Resources(l corev1.ResourceList) (cpuMilli, memBytes int64) {
	return milli(l, corev1.ResourceCPU), value(l, corev1.ResourceMemory)
}

func milli(l corev1.ResourceList, name corev1.ResourceName) int64 {
	if q, ok := l[name]; ok {
		return q.MilliValue()
	}
	return 0
}

func value(l corev1.ResourceList, name corev1.ResourceName) int64 {
	if q, ok := l[name]; ok {
		return q.Value()
	}
	return 0
}
