package kube

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
)

func TestRefuseWrites(t *testing.T) {
	var reached atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer srv.Close()
	cfg := RefuseWrites(&rest.Config{Host: srv.URL}, "dry-run")
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, path string
		sent         bool
	}{
		{http.MethodGet, "/api/v1/nodes/a", true}, {http.MethodHead, "/api/v1/nodes/a", true}, {http.MethodPost, "/api/v1/nodes/a", false},
		{http.MethodPut, "/api/v1/nodes/a", false}, {http.MethodPatch, "/api/v1/nodes/a", false}, {http.MethodDelete, "/api/v1/nodes/a", false},
		{http.MethodGet, "/api/v1/namespaces/web/pods/a/log", true},
		// A WebSocket exec or attach is a GET, and a shell writes anything.
		{http.MethodGet, "/api/v1/namespaces/web/pods/a/exec", false}, {http.MethodGet, "/api/v1/namespaces/web/pods/a/attach", false},
		{http.MethodGet, "/api/v1/namespaces/web/pods/a/portforward", false}, {http.MethodGet, "/api/v1/namespaces/web/pods/exec", true},
	} {
		before := reached.Load()
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := client.Do(req)
		if resp != nil {
			resp.Body.Close()
		}
		if sent := reached.Load() > before; sent != tc.sent {
			t.Errorf("%s %s reached the server: %v, want %v", tc.method, tc.path, sent, tc.sent)
		}
		if !tc.sent && (err == nil || !strings.Contains(err.Error(), "nodepilot runs dry-run")) {
			t.Errorf("%s: error %v, want a refusal naming the mode", tc.method, err)
		}
	}
}

// TestRefuseWritesStopsExec: the real exec client (WebSocket, with its SPDY fallback) on a
// refusing config is refused before anything reaches the server: the executors build their
// transports through the config's wrappers too.
func TestRefuseWritesStopsExec(t *testing.T) {
	var reached atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer srv.Close()
	cfg := RefuseWrites(&rest.Config{Host: srv.URL}, "read-only")
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = Exec(t.Context(), cfg, client, "shop", "web-0", "web", []string{"sh"}, remotecommand.StreamOptions{Stdin: strings.NewReader("id\n"), Stdout: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "nodepilot runs read-only") {
		t.Errorf("exec: %v, want a refusal naming the mode", err)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
