// Package termination drains and terminates the nodes of NodeClaims being deleted, as Karpenter's
// termination controller does: taint karpenter.sh/disrupted, evict through the Eviction API in
// four tiers (non-critical, non-critical DaemonSet, critical, critical DaemonSet), retry evictions
// a PodDisruptionBudget refuses with backoff, force deletion once the NodeClaim's
// terminationGracePeriod runs out, terminate the machine, then release the finalizers.
package termination
