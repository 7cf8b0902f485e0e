// Package usage keeps what metrics.k8s.io says pods and nodes use: the latest reading for the
// console's columns, and a window of readings per pod from which right-sizing takes a high
// percentile of CPU and the peak of memory. It does no I/O; kube/metricsapi feeds it.
package usage
