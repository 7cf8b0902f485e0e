// Package apitest serves stand-ins for a Kubernetes API server in tests that need one to answer
// but not to hold objects.
package apitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// VersionOnly starts an API server that answers /version (Kubernetes 1.33), as client-go's
// discovery asks first, and 404 to everything else; it closes when the test ends.
func VersionOnly(t testing.TB) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			_, _ = io.WriteString(w, `{"major":"1","minor":"33"}`)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}
