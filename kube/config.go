package kube

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/userfile"
)

// ErrNoConfig is returned by RESTConfig when there is neither a kubeconfig nor an in-cluster
// service account.
var ErrNoConfig = errors.New("no Kubernetes config: set --kubeconfig or KUBECONFIG, or run in a cluster")

// RESTConfig returns the client configuration of a cluster, as kubectl finds it: the kubeconfig
// at path if it is not empty, else the files in $KUBECONFIG, else ~/.kube/config; context names
// the context to use ("" for the current one). When no kubeconfig exists and no context is asked
// for, it falls back to the in-cluster service account. It returns ErrNoConfig when none of these
// exists, and an error naming the file and the fix when one exists but is unusable (see
// unusable).
func RESTConfig(path, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	if err := checkFiles(rules); err != nil {
		return nil, err
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err == nil {
		return cfg, nil
	}
	var files []string
	for _, f := range rules.GetLoadingPrecedence() {
		if _, statErr := os.Stat(f); statErr == nil || f == path {
			files = append(files, f)
		}
	}
	switch {
	case len(files) == 0 && clientcmd.IsEmptyConfig(err):
		return nil, ErrNoConfig
	case len(files) == 0:
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return nil, unusable(path, files, context, err)
}

// unusable says why the kubeconfig files (those RESTConfig(path, context) loaded) would not give
// a client configuration, and what to do: client-go's own errors read "no configuration has been
// provided" for a file that holds no context, or name a Go type for a file that holds another
// kind of object (a manifest given as the kubeconfig), and say nothing for a kubeconfig whose
// current context is unset.
func unusable(path string, files []string, context string, err error) error {
	for _, f := range files {
		var obj struct{ APIVersion, Kind string }
		if data, readErr := userfile.Read(f); readErr == nil && yaml.Unmarshal(data, &obj) == nil && obj.Kind != "" && obj.Kind != "Config" {
			return fmt.Errorf("kubeconfig %s: it holds a %s %s, not a kubeconfig (kind: Config): give the file kubectl uses for the cluster", f, obj.APIVersion, obj.Kind)
		}
	}
	name := "kubeconfig " + strings.Join(files, ", ")
	raw, rawErr := rawConfig(path)
	if rawErr != nil {
		return fmt.Errorf("%s: %w", name, rawErr)
	}
	contexts := strings.Join(slices.Sorted(maps.Keys(raw.Contexts)), ", ")
	switch {
	case len(raw.Contexts) == 0:
		return fmt.Errorf("%s: no context in it: it is empty or not a kubeconfig; give the file kubectl uses for the cluster (kubectl config view shows it)", name)
	case context != "" && raw.Contexts[context] == nil:
		return fmt.Errorf("%s: context %q is not one of its contexts (%s)", name, context, contexts)
	case context == "" && raw.CurrentContext == "":
		return fmt.Errorf("%s: no current context: choose one with --context (%s) or kubectl config use-context", name, contexts)
	case context == "" && raw.Contexts[raw.CurrentContext] == nil:
		return fmt.Errorf("%s: its current context %q is not one of its contexts (%s): choose one with --context or kubectl config use-context", name, raw.CurrentContext, contexts)
	}
	return fmt.Errorf("%s: %w", name, err)
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
	if err := checkFiles(rules); err != nil {
		return clientcmdapi.Config{}, err
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).RawConfig()
}

// checkFiles refuses, before client-go reads them, kubeconfig files that are not regular files:
// client-go would block for ever opening a FIFO (a process substitution given as --kubeconfig,
// say) and read a device without end. Missing files are left to client-go, which skips them or
// names them.
func checkFiles(rules *clientcmd.ClientConfigLoadingRules) error {
	for _, f := range rules.GetLoadingPrecedence() {
		if err := userfile.Check(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("kubeconfig %w", err)
		}
	}
	return nil
}
