// Package engine holds nodepilot's autoscaler logic: pure decisions over snapshots of a
// cluster, with no network, client-go clientsets or AWS SDK. Its sub-packages are named after
// what they decide: requirements (the label algebra), cloudprovider (instance types, offerings
// and the interface a cloud implements), scheduling (the bin-packing simulation and its
// explainer), and the autoscaler loops built on them.
package engine
