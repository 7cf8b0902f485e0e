package kube

import (
	"fmt"
	"net/http"

	"k8s.io/client-go/rest"
)

// RefuseWrites returns a copy of cfg whose transport refuses, before anything is sent, every
// request that is not a read (GET, HEAD, OPTIONS; watches are GETs). Read-only and dry-run runs
// build their clients on it, so that no code path can write to the cluster. mode names the run
// in the error ("read-only", "dry-run").
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
		return r.next.RoundTrip(req)
	}
	return nil, fmt.Errorf("%s %s refused: nodepilot runs %s and writes nothing to the cluster", req.Method, req.URL.Path, r.mode)
}
