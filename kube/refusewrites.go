package kube

import (
	"fmt"
	"net/http"
	"path"

	"k8s.io/client-go/rest"
)

// RefuseWrites returns a copy of cfg whose transport refuses, before anything is sent, every
// request that is not a read (GET, HEAD, OPTIONS; watches are GETs). Read-only and dry-run runs
// build their clients on it, so that no code path can write to the cluster. mode names the run
// in the error ("read-only", "dry-run"). The streaming subresources (pods' exec, attach and
// portforward) are refused whatever the method: over WebSocket they are GETs, and a shell can
// change anything.
func RefuseWrites(cfg *rest.Config, mode string) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return refuseWrites{next: rt, mode: mode} })
	return out
}

type refuseWrites struct {
	next http.RoundTripper
	mode string
}

func (r refuseWrites) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if !streaming(req.URL.Path) {
			return r.next.RoundTrip(req)
		}
	}
	return nil, fmt.Errorf("%s %s refused: nodepilot runs %s and writes nothing to the cluster", req.Method, req.URL.Path, r.mode)
}

// streaming reports whether a path is a pod's exec, attach or portforward subresource.
func streaming(p string) bool {
	switch path.Base(p) {
	case "exec", "attach", "portforward":
		return path.Base(path.Dir(path.Dir(p))) == "pods"
	}
	return false
}
