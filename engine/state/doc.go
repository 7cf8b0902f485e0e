// Package state is the engine's view of a cluster: the pods, nodes, NodePools, NodeClaims,
// EC2NodeClasses, PodDisruptionBudgets and DaemonSets the informers deliver, indexed and joined
// (a Node with its NodeClaim, pods by node), plus what only the engine knows (nominations, nodes
// marked for deletion, when pods last came and went). Loops read immutable snapshots of it and
// change the cluster through the APIWriter it declares.
package state
