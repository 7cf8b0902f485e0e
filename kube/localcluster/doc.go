// Package localcluster owns the local, real Kubernetes control plane that `nodepilot demo` and the
// integration tests run against: it finds the cached binaries built by hack/build-k8s-bins.sh, starts
// etcd, kube-apiserver, kube-scheduler, kube-controller-manager and kwok on loopback in a folder of
// their own, installs CRDs, and stops them again, leaving no process behind even when the parent is
// killed. It also plays the kubelet for the AWS emulator's instances: RegisterNodes keeps one Node per
// running instance, which kwok then keeps Ready and whose pods kwok runs.
//
// The package runs on Linux (process groups and the parent-death signal); other Unix systems start
// the same processes but cannot guarantee they die with a SIGKILLed parent.
package localcluster
