// Package lifecycle takes each NodeClaim from creation to an initialized node, as Karpenter's
// NodeClaim lifecycle controller does: launch through the cloud (idempotent per NodeClaim),
// registration of the Node that comes up, initialization once it is ready for pods, and deletion
// of NodeClaims that never launch or register, or that expire. It also keeps the conditions
// disruption reads (Drifted, Consolidatable) and the last pod event time up to date.
package lifecycle
