package kube

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
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
