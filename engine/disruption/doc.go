// Package disruption removes nodes the cluster no longer needs or that no longer match their
// NodePool, one command at a time and in Karpenter's order: emptiness, drift, multi-node
// consolidation (binary search over up to 100 candidates), single-node consolidation. It respects
// NodePool budgets per reason, PodDisruptionBudgets and karpenter.sh/do-not-disrupt, checks a
// consolidation decision again before acting on it, and records why each node is not disrupted.
//
// A file a behaviour, as Karpenter lays its disruption package out: controller.go (the loop and
// the journal), pass.go (one pass over the candidates), candidate.go, budget.go, emptiness.go,
// drift.go, multinodeconsolidation.go, singlenodeconsolidation.go, consolidation.go (the
// simulation both consolidations run), split.go (split replacements, which Karpenter lacks),
// balanced.go (the Balanced policy), validation.go, orchestration.go (carrying a command out)
// and simulate.go (the console's "what if").
package disruption
