// Package metricsapi reads metrics.k8s.io, the API metrics-server serves (what kubectl top
// reads), for the console: it polls node and pod metrics, keeps a window of pod readings for
// right-sizing, and publishes the latest figures, or why there are none.
package metricsapi
