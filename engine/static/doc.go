// Package static keeps each static NodePool (one with spec.replicas) at its node count, as
// Karpenter's static provisioning and deprovisioning controllers do: it creates NodeClaims from
// the NodePool's template while fewer are running than its replicas, within limits.nodes, and
// deletes the surplus when replicas drop, unlaunched NodeClaims first, then empty nodes, then the
// cheapest to disrupt. Static nodes are never consolidated; drift replaces them one for one
// (package disruption).
package static
