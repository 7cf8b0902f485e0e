// Package interruption acts on the cloud's interruption events, as Karpenter's interruption
// controller does: a spot interruption warning, a scheduled change, a stopping or terminated
// instance deletes its NodeClaim (termination drains the node and the provisioner replaces its
// pods); a rebalance recommendation is recorded and nothing more.
package interruption
