package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
