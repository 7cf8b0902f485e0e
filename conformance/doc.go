// Package conformance is the conformance tier: nodepilot and the real Karpenter controller
// (v1.14.3, built by hack/build-karpenter.sh) run the same workload on the same local control
// plane and AWS emulator, hand a cluster over to each other both ways, and handle a spot
// interruption. It has only tests; `make test` runs them.
package conformance
