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
		method string
		sent   bool
	}{
		{http.MethodGet, true}, {http.MethodHead, true}, {http.MethodPost, false}, {http.MethodPut, false},
		{http.MethodPatch, false}, {http.MethodDelete, false},
	} {
		before := reached.Load()
		req, _ := http.NewRequest(tc.method, srv.URL+"/api/v1/nodes/a", nil)
		resp, err := client.Do(req)
		if resp != nil {
			resp.Body.Close()
		}
		if sent := reached.Load() > before; sent != tc.sent {
			t.Errorf("%s reached the server: %v, want %v", tc.method, sent, tc.sent)
		}
		if !tc.sent && (err == nil || !strings.Contains(err.Error(), "nodepilot runs dry-run")) {
			t.Errorf("%s: error %v, want a refusal naming the mode", tc.method, err)
		}
	}
}
