// Package demo runs nodepilot on a real local control plane (etcd, kube-apiserver,
// kube-scheduler, kube-controller-manager and kwok, from kube/localcluster) and the in-process
// AWS emulator, with no cloud account: it applies the seed NodePools and EC2NodeClasses (their
// discovery tags pointed at the emulator) and a few workloads, registers a kwok Node for every
// instance the emulator boots, and runs the autoscaler against both through the production code
// path (client-go, aws-sdk-go-v2).
package demo
