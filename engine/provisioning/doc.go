// Package provisioning launches capacity for pods that fit nowhere, as Karpenter's provisioner
// does: unschedulable pods open a batch window; when it closes and the cluster state has synced,
// the scheduling simulation places them on existing nodes, in-flight NodeClaims and new
// NodeClaims; NodePool limits are checked again against live usage, the NodeClaims are created,
// and the nodes counted on are nominated so that disruption leaves them alone for a while.
package provisioning
