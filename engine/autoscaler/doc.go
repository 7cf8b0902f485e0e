// Package autoscaler runs nodepilot's loops over a cluster state, a writer and a cloud:
// provisioning on batches of unschedulable pods, the NodeClaim lifecycle and termination every
// second and on change, disruption every ten seconds and on change, garbage collection every two
// minutes, and the cloud's interruption queue. It can be paused, and in dry-run every loop
// decides and journals without changing anything.
package autoscaler
