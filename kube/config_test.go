package kube_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
// configuration at all (and no in-cluster service account) is ErrNoConfig; a file that is not a
// usable kubeconfig is an error naming it and the fix. (~/.kube/config is not covered: client-go
// fixes its path when the process starts.)
func TestRESTConfig(t *testing.T) {
	dir := t.TempDir()
	path := writeKubeconfig(t, dir)
	const oneContext = "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {server: https://a.example}\n" +
		"contexts:\n- name: a\n  context: {cluster: a, user: a}\nusers:\n- name: a\n  user: {token: x}\n"
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notKubeconfig, empty := file("not-kubeconfig", "hello: world\n"), file("empty", "")
	pod := file("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n")
	noCurrent := file("no-current", oneContext)
	dangling := file("dangling", oneContext+"current-context: gone\n")
	// A FIFO no one writes to: client-go would block opening it.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
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
		{name: "unknown context", path: path, context: "c", wantErr: `context "c" is not one of its contexts (a, b)`},
		{name: "missing file", path: filepath.Join(dir, "missing"), wantErr: filepath.Join(dir, "missing")},
		{name: "not a kubeconfig", path: notKubeconfig, wantErr: "kubeconfig " + notKubeconfig + ": no context in it: it is empty or not a kubeconfig"},
		{name: "not a kubeconfig in KUBECONFIG", env: notKubeconfig, wantErr: "kubeconfig " + notKubeconfig + ": no context in it"},
		{name: "empty file", path: empty, wantErr: "kubeconfig " + empty + ": no context in it"},
		{name: "a manifest", path: pod, wantErr: "kubeconfig " + pod + ": it holds a v1 Pod, not a kubeconfig (kind: Config)"},
		{name: "no current context", path: noCurrent, wantErr: "kubeconfig " + noCurrent + ": no current context: choose one with --context (a)"},
		{name: "no current context, one given", path: noCurrent, context: "a", wantHost: "https://a.example", wantToken: "x", wantContext: "a"},
		{name: "a FIFO", path: fifo, wantErr: "kubeconfig " + fifo + " is not a regular file (a FIFO): give the path of a regular file"},
		{name: "a FIFO in KUBECONFIG", env: path + ":" + fifo, wantErr: "kubeconfig " + fifo + " is not a regular file (a FIFO)"},
		{name: "a device", path: os.DevNull, wantErr: "kubeconfig " + os.DevNull + " is not a regular file (a character device)"},
		{name: "current context gone", path: dangling, wantErr: `its current context "gone" is not one of its contexts (a)`},
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

// TestContexts lists a kubeconfig's contexts sorted, with its current one, from the path or
// $KUBECONFIG; a kubeconfig without contexts lists none, and one that does not load is an error
// naming the file.
func TestContexts(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, contexts []string, current string) string {
		cfg := clientcmdapi.NewConfig()
		for _, c := range contexts {
			cfg.Clusters[c] = &clientcmdapi.Cluster{Server: "https://" + c + ".example"}
			cfg.Contexts[c] = &clientcmdapi.Context{Cluster: c}
		}
		cfg.CurrentContext = current
		path := filepath.Join(dir, name)
		if err := clientcmd.WriteToFile(*cfg, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	several := write("several", []string{"staging", "dev", "prod-eu"}, "prod-eu")
	none := write("none", nil, "")
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("contexts: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, env string
		wantNames       []string
		wantCurrent     string
		wantErr         string // the error contains it
	}{
		{name: "several, sorted", path: several, wantNames: []string{"dev", "prod-eu", "staging"}, wantCurrent: "prod-eu"},
		{name: "from KUBECONFIG", env: several, wantNames: []string{"dev", "prod-eu", "staging"}, wantCurrent: "prod-eu"},
		{name: "none", path: none},
		{name: "malformed file", path: bad, wantErr: bad},
		{name: "unreadable (a directory)", path: dir, wantErr: dir},
		{name: "malformed file in KUBECONFIG", env: bad, wantErr: bad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.env)
			names, current, err := kube.Contexts(tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names, tc.wantNames) || current != tc.wantCurrent {
				t.Errorf("Contexts = %q, %q; want %q, %q", names, current, tc.wantNames, tc.wantCurrent)
			}
		})
	}
}
