package kube_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/nodepilot/nodepilot/kube"
)

// writeKubeconfig writes a kubeconfig with contexts "a" (current) and "b", whose servers are
// https://a.example and https://b.example, and returns its path.
func writeKubeconfig(t *testing.T, dir string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	for _, name := range []string{"a", "b"} {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: "https://" + name + ".example"}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: "token-" + name}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	cfg.CurrentContext = "a"
	path := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRESTConfig: the kubeconfig and context come from the flags, else $KUBECONFIG; no
// configuration at all (and no in-cluster service account) is ErrNoConfig. (~/.kube/config is
// not covered: client-go fixes its path when the process starts.)
func TestRESTConfig(t *testing.T) {
	dir := t.TempDir()
	path := writeKubeconfig(t, dir)
	for _, tc := range []struct {
		name                     string
		path, context, env, home string
		wantHost, wantToken      string
		wantContext              string // ContextName's answer
		wantErr                  string // the error contains it
		wantNoConfig             bool
	}{
		{name: "flag, current context", path: path, wantHost: "https://a.example", wantToken: "token-a", wantContext: "a"},
		{name: "flag and context", path: path, context: "b", wantHost: "https://b.example", wantToken: "token-b", wantContext: "b"},
		{name: "flag wins over KUBECONFIG", path: path, env: "/nonexistent", wantHost: "https://a.example", wantToken: "token-a", wantContext: "a"},
		{name: "KUBECONFIG", env: path, context: "b", wantHost: "https://b.example", wantToken: "token-b", wantContext: "b"},
		{name: "unknown context", path: path, context: "c", wantErr: `context "c"`},
		{name: "missing file", path: filepath.Join(dir, "missing"), wantErr: filepath.Join(dir, "missing")},
		{name: "nothing", wantNoConfig: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(clientcmd.RecommendedHomeFile); err == nil && tc.wantNoConfig {
				t.Skipf("%s exists on this machine", clientcmd.RecommendedHomeFile)
			}
			t.Setenv("KUBECONFIG", tc.env)
			t.Setenv("KUBERNETES_SERVICE_HOST", "") // not in a cluster
			cfg, err := kube.RESTConfig(tc.path, tc.context)
			if got := kube.ContextName(tc.path, tc.context); err == nil && got != tc.wantContext {
				t.Errorf("ContextName = %q, want %q", got, tc.wantContext)
			}
			switch {
			case tc.wantNoConfig:
				if !errors.Is(err, kube.ErrNoConfig) || err.Error() != "no Kubernetes config: set --kubeconfig or KUBECONFIG, or run in a cluster" {
					t.Errorf("err = %v, want ErrNoConfig", err)
				}
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v, want one naming %s", err, tc.wantErr)
				}
			case err != nil:
				t.Errorf("RESTConfig: %v", err)
			case cfg.Host != tc.wantHost || cfg.BearerToken != tc.wantToken:
				t.Errorf("host %s token %s, want %s %s", cfg.Host, cfg.BearerToken, tc.wantHost, tc.wantToken)
			}
		})
	}
}

// TestEKSCluster reads an EKS cluster's name and region from the kubeconfig's cluster names, as
// the AWS CLI and eksctl write them, and nothing from other clusters.
func TestEKSCluster(t *testing.T) {
	cfg := clientcmdapi.NewConfig()
	for ctx, cluster := range map[string]string{
		"cli":      "arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu",
		"gov":      "arn:aws-us-gov:eks:us-gov-west-1:123456789012:cluster/gov",
		"eksctl":   "shop.us-east-2.eksctl.io",
		"kind":     "kind-dev",
		"role-arn": "arn:aws:iam::123456789012:role/admin",
	} {
		cfg.Clusters[cluster] = &clientcmdapi.Cluster{Server: "https://" + ctx + ".example"}
		cfg.Contexts[ctx] = &clientcmdapi.Context{Cluster: cluster}
	}
	cfg.CurrentContext = "cli"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ context, wantName, wantRegion string }{
		{"", "prod-eu", "eu-west-1"},
		{"cli", "prod-eu", "eu-west-1"},
		{"gov", "gov", "us-gov-west-1"},
		{"eksctl", "shop", "us-east-2"},
		{"kind", "", ""},
		{"role-arn", "", ""},
		{"missing", "", ""},
	} {
		if name, region := kube.EKSCluster(path, tc.context); name != tc.wantName || region != tc.wantRegion {
			t.Errorf("EKSCluster(%q) = %q, %q; want %q, %q", tc.context, name, region, tc.wantName, tc.wantRegion)
		}
	}
}
