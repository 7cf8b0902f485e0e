package kube

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
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
	raw, err := rawConfig(path)
	switch {
	case err == nil && raw.CurrentContext != "":
		return raw.CurrentContext
	case os.Getenv("KUBERNETES_SERVICE_HOST") != "":
		return "in-cluster"
	}
	return ""
}

// EKSCluster returns the EKS cluster name and region of the context RESTConfig(path, context)
// uses, read from the name of the context's cluster as `aws eks update-kubeconfig` writes it (an
// ARN, arn:aws:eks:REGION:ACCOUNT:cluster/NAME) or eksctl does (NAME.REGION.eksctl.io); "" and ""
// for any other cluster.
func EKSCluster(path, context string) (name, region string) {
	raw, err := rawConfig(path)
	if err != nil {
		return "", ""
	}
	if context == "" {
		context = raw.CurrentContext
	}
	c, ok := raw.Contexts[context]
	if !ok {
		return "", ""
	}
	cluster := c.Cluster
	if parts := strings.Split(cluster, ":"); len(parts) == 6 && parts[0] == "arn" && parts[2] == "eks" && strings.HasPrefix(parts[5], "cluster/") {
		return strings.TrimPrefix(parts[5], "cluster/"), parts[3]
	}
	if rest, ok := strings.CutSuffix(cluster, ".eksctl.io"); ok {
		if i := strings.LastIndexByte(rest, '.'); i > 0 {
			return rest[:i], rest[i+1:]
		}
	}
	return "", ""
}

// Contexts returns the names of the kubeconfig's contexts, sorted, and its current context,
// loaded as RESTConfig loads them (path, else $KUBECONFIG, else ~/.kube/config); no kubeconfig
// at all is no context and no error. The error names the file that failed to load (client-go's
// errors do).
func Contexts(path string) ([]string, string, error) {
	raw, err := rawConfig(path)
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err) // client-go's error names the file
	}
	return slices.Sorted(maps.Keys(raw.Contexts)), raw.CurrentContext, nil
}

// rawConfig loads the kubeconfig as RESTConfig does, without resolving a context.
func rawConfig(path string) (clientcmdapi.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).RawConfig()
}
