package kube

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ErrNoConfig is returned by RESTConfig when there is neither a kubeconfig nor an in-cluster
// service account.
var ErrNoConfig = errors.New("no Kubernetes config: set --kubeconfig or KUBECONFIG, or run in a cluster")

// RESTConfig returns the client configuration of a cluster, as kubectl finds it: the kubeconfig
// at path if it is not empty, else the files in $KUBECONFIG, else ~/.kube/config; context names
// the context to use ("" for the current one). When no kubeconfig exists and no context is asked
// for, it falls back to the in-cluster service account. It returns ErrNoConfig when none of these
// exists, and the loader's error (naming the file or context) when one exists but is unusable.
func RESTConfig(path, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	switch {
	case clientcmd.IsEmptyConfig(err):
		return nil, ErrNoConfig
	case err != nil && path != "":
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	case err != nil:
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return cfg, nil
}

// ContextName names the context RESTConfig(path, context) uses, for display: context when given,
// else the kubeconfig's current context, else "in-cluster" inside a pod, else "".
func ContextName(path, context string) string {
	if context != "" {
		return context
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	raw, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).RawConfig()
	switch {
	case err == nil && raw.CurrentContext != "":
		return raw.CurrentContext
	case os.Getenv("KUBERNETES_SERVICE_HOST") != "":
		return "in-cluster"
	}
	return ""
}
