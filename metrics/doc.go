// Package metrics exposes the autoscaler's Prometheus metrics under Karpenter's karpenter_*
// names where the concept is the same, plus nodepilot_* ones for cost: counters fed by the
// journal, and gauges (NodePool usage, limits, cost per hour) computed from the cluster state at
// each scrape.
package metrics
