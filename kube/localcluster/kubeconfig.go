package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The client rate limits of RESTConfig: far above client-go's defaults (5 QPS), because a local
// cluster serves one user and tests create objects in bursts.
const (
	clientQPS   = 200
	clientBurst = 400
)

// kubeconfigName names the cluster, user and context in the kubeconfig.
const kubeconfigName = "nodepilot-local"

// kubeconfig returns the admin kubeconfig of a cluster served at server: the static token, and no
// TLS verification (kube-apiserver signs its own serving certificate).
func kubeconfig(server, token string) *clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[kubeconfigName] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos[kubeconfigName] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[kubeconfigName] = &clientcmdapi.Context{Cluster: kubeconfigName, AuthInfo: kubeconfigName}
	cfg.CurrentContext = kubeconfigName
	return cfg
}

// writeKubeconfig writes cfg to path (mode 0600: it holds the admin token), creating its folder.
func writeKubeconfig(path string, cfg *clientcmdapi.Config) error {
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("localcluster: encode kubeconfig for %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("localcluster: write kubeconfig %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("localcluster: write kubeconfig %s: %w", path, err)
	}
	return nil
}

// restConfig returns a client configuration equivalent to the kubeconfig.
func restConfig(server, token string) *rest.Config {
	return &rest.Config{
		Host:            server,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             clientQPS,
		Burst:           clientBurst,
	}
}

// ServiceAccountKubeconfig writes a kubeconfig that acts as the ServiceAccount namespace/name,
// with a token from the TokenRequest API valid for an hour, as a pod of that ServiceAccount
// would hold it, so that whatever uses it is held to the account's RBAC. It returns its path.
func (c *Cluster) ServiceAccountKubeconfig(ctx context.Context, namespace, name string) (string, error) {
	client, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		return "", fmt.Errorf("localcluster: %w", err)
	}
	expiry := int64(time.Hour / time.Second)
	token, err := client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("localcluster: a token for service account %s/%s: %w", namespace, name, err)
	}
	path := filepath.Join(c.Dir, "serviceaccount-"+namespace+"-"+name+".kubeconfig")
	return path, writeKubeconfig(path, kubeconfig(c.server, token.Status.Token))
}
