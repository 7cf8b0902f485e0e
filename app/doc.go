// Package app assembles nodepilot from its parts for every command that watches or changes a
// cluster (the console, the headless controller, the demo): Kubernetes clients and informers
// feeding the engine's state, the EC2 provider, the journal with its log, event and metric sinks,
// the autoscaler's loops, and the EC2NodeClass status they depend on.
package app
