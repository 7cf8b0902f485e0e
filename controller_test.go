package main

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestReadiness(t *testing.T) {
	now := time.Date(2026, 12, 3, 17, 0, 0, 0, time.UTC)
	synced := func() error { return nil }
	notSynced := func() error { return errors.New("the cluster state has not synced yet") }
	for _, tc := range []struct {
		name      string
		standby   bool
		app       func() error
		leaseRead time.Time
		want      string // "" when ready
	}{
		{"leader, synced and answered", false, synced, time.Time{}, ""},
		{"leader, not synced", false, notSynced, now, "not synced"},
		{"standby reading the Lease", true, notSynced, now.Add(-3 * time.Second), ""},
		{"standby that never read the Lease", true, synced, time.Time{}, "has not been read yet"},
		{"standby cut off from the API server", true, synced, now.Add(-time.Minute), "has not been read for over 15s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readiness(tc.standby, tc.app, tc.leaseRead, now)
			if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("readiness = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestControllerProbes: /readyz answers 503 with the reason until ready, then 200; each change is
// logged once however often the probe asks.
func TestControllerProbes(t *testing.T) {
	var logs bytes.Buffer
	var reason error = errors.New("the cluster state has not synced yet")
	srv := httptest.NewServer(healthMux(slog.New(slog.NewTextHandler(&logs, nil)), func() error { return reason }))
	t.Cleanup(srv.Close)
	probe := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for range 3 {
		if code, body := probe("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not synced") {
			t.Fatalf("/readyz before sync = %d %q", code, body)
		}
	}
	reason = nil
	for range 3 {
		if code, _ := probe("/readyz"); code != http.StatusOK {
			t.Fatalf("/readyz when ready = %d", code)
		}
	}
	if code, _ := probe("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d", code)
	}
	if n := strings.Count(logs.String(), "not ready"); n != 1 {
		t.Errorf("logged 'not ready' %d times, want once:\n%s", n, logs.String())
	}
	if n := strings.Count(logs.String(), "msg=ready"); n != 1 {
		t.Errorf("logged 'ready' %d times, want once:\n%s", n, logs.String())
	}
}

// TestMetricsMux: /metrics always; Go's profiles only with --enable-profiling.
func TestMetricsMux(t *testing.T) {
	for _, tc := range []struct {
		profiling bool
		path      string
		want      int
	}{
		{false, "/metrics", http.StatusOK},
		{false, "/debug/pprof/", http.StatusNotFound},
		{false, "/debug/pprof/heap", http.StatusNotFound},
		{true, "/metrics", http.StatusOK},
		{true, "/debug/pprof/", http.StatusOK},
		{true, "/debug/pprof/heap", http.StatusOK},
		{true, "/debug/pprof/cmdline", http.StatusOK},
	} {
		srv := httptest.NewServer(metricsMux(prometheus.NewRegistry(), tc.profiling))
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("profiling %v: GET %s = %d, want %d", tc.profiling, tc.path, resp.StatusCode, tc.want)
		}
	}
}

// TestControllerFatalErrors: nodepilot controller exits 1 with the reason on any fatal error,
// at once, instead of running on without a view or hanging.
func TestControllerFatalErrors(t *testing.T) {
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			_, _ = io.WriteString(w, `{"major":"1","minor":"33","gitVersion":"v1.33.1"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,`+
			`"message":"nodes is forbidden: User \"nodepilot\" cannot list resource \"nodes\""}`)
	}))
	t.Cleanup(forbidden.Close)
	closed := closedAddr(t)
	dir := t.TempDir()
	kubeconfig := func(server string) string {
		path := filepath.Join(dir, strings.NewReplacer(":", "_", "/", "_").Replace(server))
		if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \""+server+
			"\"}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: t}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	keys := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"}
	for _, tc := range []struct {
		name   string
		server string
		args   []string
		env    map[string]string
		want   string
	}{
		{"lists forbidden", forbidden.URL, []string{"--region", "us-east-1"}, keys, "forbidden"},
		{"no region", forbidden.URL, nil, keys, "no AWS region"},
		{"no credentials", forbidden.URL, []string{"--region", "us-east-1"}, nil, "no AWS credentials"},
		{"API server out of reach", "http://" + closed, []string{"--region", "us-east-1"}, keys, "for its version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_WEB_IDENTITY_TOKEN_FILE"} {
				t.Setenv(k, "")
			}
			t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "none"))
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "none"))
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			// Any AWS call goes to a closed port, never to AWS.
			t.Setenv("AWS_ENDPOINT_URL", "http://"+closed)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := append([]string{"controller", "--kubeconfig", kubeconfig(tc.server), "--cluster-name", "test", "--leader-elect=false",
				"--metrics-addr", "127.0.0.1:0", "--health-addr", "127.0.0.1:0"}, tc.args...)
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(args, &stdout, &stderr) }()
			select {
			case code := <-done:
				if code != 1 || !strings.Contains(stderr.String(), tc.want) {
					t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), tc.want)
				}
			case <-time.After(time.Minute):
				t.Fatalf("still running after a minute; logs:\n%s", stdout.String())
			}
		})
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
