// Package enginetest is an in-memory cluster for the engine's tests: an API server that
// implements state.Writer and feeds a state.Cluster as informers would, a cloud that implements
// cloudprovider.CloudProvider and cloudprovider.Interruptions, a kubelet that registers nodes for
// launched instances and runs their pods, a kube-scheduler that binds pending pods, and an Env
// that ties them to a fake clock. Everything runs in the test's goroutine when the test steps
// the clock, so long simulated runs take milliseconds; the engine's goroutines may call the API
// and the cloud concurrently.
//
// It is deliberately smaller than Kubernetes: see the doc comment of each piece for what it
// simplifies. Only tests import it.
package enginetest
