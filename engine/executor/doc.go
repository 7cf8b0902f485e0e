// Package executor performs every write the autoscaler and the console make, to Kubernetes and
// to the cloud alike, and journals each. Its mode decides, in one place, what a write does:
// live performs it, dry-run journals it as "would" and performs nothing, read-only refuses it.
// The loops hold an Executor instead of a writer or a cloud provider's mutating methods, so no
// decision can write around it.
package executor
