// Package disruption removes nodes the cluster no longer needs or that no longer match their
// NodePool, one command at a time and in Karpenter's order: emptiness, drift, multi-node
// consolidation (binary search over up to 100 candidates), single-node consolidation. It respects
// NodePool budgets per reason, PodDisruptionBudgets and karpenter.sh/do-not-disrupt, checks a
// consolidation decision again before acting on it, and records why each node is not disrupted.
package disruption
