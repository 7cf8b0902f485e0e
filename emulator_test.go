package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/aws/policy"
)

func TestExposed(t *testing.T) {
	for _, tc := range []struct {
		listen string
		want   bool
	}{
		{"127.0.0.1:4566", false},
		{"127.0.0.2:4566", false},
		{"[::1]:4566", false},
		{"localhost:4566", false},
		{"0.0.0.0:4566", true},
		{":4566", true},
		{"[::]:4566", true},
		{"10.1.2.3:4566", true},
		{"[2001:db8::1]:4566", true},
		{"no-port", false},
	} {
		if got := exposed(tc.listen); got != tc.want {
			t.Errorf("exposed(%q) = %v, want %v", tc.listen, got, tc.want)
		}
	}
}

// TestEmulatorWarnsWhenExposed runs the command with its context already cancelled, so it starts,
// prints and returns; only a listen address beyond loopback gets the warning.
func TestEmulatorWarnsWhenExposed(t *testing.T) {
	for _, tc := range []struct {
		listen string
		warn   bool
	}{
		{"127.0.0.1:0", false},
		{"0.0.0.0:0", true},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := emulatorCommand(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs([]string{"--listen", tc.listen})
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if err := cmd.ExecuteContext(ctx); err != nil {
				t.Fatalf("emulator --listen %s: %v", tc.listen, err)
			}
			want := ""
			if tc.warn {
				want = "nodepilot emulator: warning: listening on " + tc.listen + ", beyond loopback; the admin API (/_emulator) has no authentication: use --listen 127.0.0.1:0\n"
			}
			if got := errOut.String(); got != want {
				t.Errorf("stderr = %q, want warning %v", got, tc.warn)
			}
			if !strings.Contains(out.String(), "admin API") {
				t.Errorf("stdout = %q, want the endpoints", out.String())
			}
		})
	}
}

// TestEmulatorPolicyFlag: --policy takes a policy IAM would take, and refuses what it cannot
// enforce, naming the file.
func TestEmulatorPolicyFlag(t *testing.T) {
	dir := t.TempDir()
	rendered, err := policy.Render(policy.Params{Partition: "aws", Region: "us-east-1", AccountID: "123456789012",
		ClusterName: "my-cluster", QueueName: "my-cluster", NodeRole: "KarpenterNodeRole-my-cluster"})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"controller.json": string(rendered),
		"principal.json":  `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"ec2:*","Resource":"*"}]}`,
		"broken.json":     `{"Statement": [`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file, wantErr string
	}{
		{"controller.json", ""},
		{"principal.json", "--policy " + filepath.Join(dir, "principal.json") + ": "},
		{"broken.json", "--policy " + filepath.Join(dir, "broken.json") + ": "},
		{"missing.json", "--policy: open " + filepath.Join(dir, "missing.json")},
	} {
		t.Run(tc.file, func(t *testing.T) {
			cmd := emulatorCommand(io.Discard)
			cmd.SetArgs([]string{"--listen", "127.0.0.1:0", "--policy", filepath.Join(dir, tc.file)})
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			err := cmd.ExecuteContext(ctx)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("emulator --policy %s: %v", tc.file, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("emulator --policy %s = %v, want an error with %q", tc.file, err, tc.wantErr)
			}
		})
	}
}
