package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const noTerminal = "the console needs a terminal; use `nodepilot controller` or `demo --headless`"

// TestConsoleInputErrors checks that the console's and the demo's bad input fails with an error
// naming it, before any cluster, control plane or terminal is touched.
func TestConsoleInputErrors(t *testing.T) {
	dir := t.TempDir()
	badSkin := filepath.Join(dir, "bad-skin.yaml")
	if err := os.WriteFile(badSkin, []byte("k9s:\n  body:\n    fgColor: [1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	configHome := filepath.Join(dir, "config")
	if err := os.MkdirAll(filepath.Join(configHome, "nodepilot"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(configHome, "nodepilot", "config.yaml"), []byte("skin: neon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logFile := []string{"--log-file", filepath.Join(dir, "nodepilot.log")}
	// a folder of the user's that happens to hold a file named like the demo's log
	userDir := filepath.Join(dir, "mine")
	if err := os.MkdirAll(userDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(userDir, "nodepilot.log"), []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// kubeconfig writes a kubeconfig whose current context is of the named cluster, at a server
	// that is not there.
	kubeconfig := func(file, cluster string) string {
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: %[1]q
  cluster: {server: "https://127.0.0.1:1"}
contexts:
- name: current
  context: {cluster: %[1]q, user: admin}
current-context: current
users:
- name: admin
  user: {token: t}
`, cluster)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// an EKS context names the cluster: the console goes on to connect
	eks := kubeconfig("kubeconfig", "arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu")
	// a context of a cluster that is not EKS: its name is no cluster name
	plain := kubeconfig("kubeconfig-kind", "kind-local")
	tests := []struct {
		name       string
		args       []string
		env        string // NODEPILOT_SKIN
		configHome string // XDG_CONFIG_HOME
		want       string
	}{
		{name: "unknown skin", args: []string{"--skin", "neon"}, want: `--skin "neon": no shipped skin has that name`},
		{name: "bad skin file", args: []string{"--skin", badSkin}, want: badSkin + ": k9s.body.fgColor: must be a color"},
		{name: "skin from the environment", env: "neon", want: `NODEPILOT_SKIN "neon"`},
		{name: "skin from the config file", configHome: configHome, want: filepath.Join(configHome, "nodepilot", "config.yaml") + `: skin: "neon"`},
		{name: "flag wins over the environment", args: []string{"--skin", "neon"}, env: "light", want: `--skin "neon"`},
		{name: "bad preference policy", args: []string{"--preference-policy", "Sometimes"}, want: "use Respect or Ignore"},
		{name: "no cluster name", args: []string{"controller", "--kubeconfig", plain}, want: "set --cluster-name"},
		// the missing kubeconfig, not the cluster name its context would have given, is the fix
		{name: "no kubeconfig", args: []string{"controller", "--kubeconfig", filepath.Join(dir, "none")}, want: "kubeconfig " + filepath.Join(dir, "none") + ": "},
		{name: "missing skin file", args: []string{"--skin", filepath.Join(dir, "none.yaml")}, want: "skin file " + filepath.Join(dir, "none.yaml") + ": no such file or directory (a skin is"},
		// without a terminal the console fails before it connects (to a server that is not there)
		{name: "no terminal", args: append(logFile, "--kubeconfig", eks), want: noTerminal},
		{name: "demo: no terminal", args: []string{"demo", "--dir", filepath.Join(dir, "demo")}, want: noTerminal},
		{name: "log file in a file", args: []string{"--log-file", filepath.Join(badSkin, "nodepilot.log")}, want: "--log-file " + badSkin},
		{name: "log file not a log", args: []string{"--log-file", badSkin}, want: "--log-file: " + badSkin + " exists and is not a nodepilot log"},
		{name: "demo: its log not a log", args: []string{"demo", "--headless", "--dir", userDir}, want: "--dir: " + filepath.Join(userDir, "nodepilot.log") + " exists and is not a nodepilot log"},
		{name: "argument", args: []string{"nodes"}, want: `unknown command "nodes"`},
		{name: "demo: unknown skin", args: []string{"demo", "--skin", "neon"}, want: `--skin "neon"`},
		{name: "demo: bad batch window", args: []string{"demo", "--batch-idle-duration", "soon"}, want: "batch-idle-duration"},
		{name: "split saving of 100%", args: []string{"--split-saving", "100"}, want: "--split-saving 100: a percentage from 0 (off) to below 100"},
		{name: "split saving not a number", args: []string{"--split-saving", "NaN"}, want: "--split-saving NaN: a percentage"},
		{name: "controller: negative price cliff", args: []string{"controller", "--price-cliff", "-2"}, want: "--price-cliff -2: use a ratio above 1"},
		{name: "demo: negative split saving", args: []string{"demo", "--split-saving", "-5"}, want: "--split-saving -5: a percentage"},
		{name: "demo: metrics address not an address", args: []string{"demo", "--headless", "--dir", filepath.Join(dir, "demo-metrics"), "--metrics-addr", "127.0.0.1:http-ish"},
			want: "--metrics-addr: listening on 127.0.0.1:http-ish"},
	}
	// go test's stdin may be a terminal or not: make it not one.
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	stdin := os.Stdin
	os.Stdin = devNull
	defer func() { os.Stdin = stdin }()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NODEPILOT_SKIN", tt.env)
			t.Setenv("XDG_CONFIG_HOME", tt.configHome)
			var out, errOut bytes.Buffer
			if code := run(tt.args, &out, &errOut); code != 1 {
				t.Fatalf("exit %d, want 1 (stdout %q, stderr %q)", code, out.String(), errOut.String())
			}
			if tt.want == noTerminal && errOut.String() != "nodepilot: "+noTerminal+"\n" {
				t.Errorf("stderr %q, want the one line %q", errOut.String(), noTerminal)
			}
			if !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("stderr %q does not contain %q", errOut.String(), tt.want)
			}
		})
	}
}
