// Package scheduling simulates what Karpenter's provisioner would do with a set of pending pods:
// place each on an existing node, else on a NodeClaim planned in the same pass, else on a new
// NodeClaim from the highest-weight NodePool that can take it, relaxing soft preferences in
// Karpenter's order when a pod fits nowhere. Every pod that still fits nowhere is explained, per
// NodePool, in an operator's words.
//
// Solve is pure: a snapshot in, a plan out. The provisioner, consolidation, the console's
// "why pending" and `nodepilot plan` all call it.
package scheduling
