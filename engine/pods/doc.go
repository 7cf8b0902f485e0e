// Package pods holds the predicates about pods that every loop of the engine shares: which pods
// the provisioner must find room for, which count as running on a node, which block
// disruption, which a drain evicts, and whether tolerations tolerate a node's taints.
package pods
