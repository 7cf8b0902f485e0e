// Package kube is the client side of the engine: everything nodepilot does to a Kubernetes API
// server. It loads a client configuration (any kubeconfig context, or in-cluster), talks to the
// Karpenter custom resources through a small typed REST client (Resource), feeds engine/state from
// shared informers (RunInformers), changes the cluster for the engine (Writer, which implements
// state.APIWriter, events included), elects a leader on a Lease for headless mode
// (RunWithLeaderElection) and installs the CRDs (InstallCRDs). The RBAC it needs is the Helm
// chart's, charts/nodepilot/templates/rbac.yaml.
//
// The custom resources are read and written as the typed structs of kube/apis over a REST client
// built with their scheme, not through the dynamic client: informers store the typed objects that
// the engine reads as they are, with no conversion from unstructured maps on each event and no
// second copy of every object in memory.
package kube
