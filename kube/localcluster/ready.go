package localcluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// readyPollInterval is how often Start probes a component that is not ready yet.
const readyPollInterval = 100 * time.Millisecond

// probe reports whether a component serves; nil means ready.
type probe func(ctx context.Context) error

// waitReady polls ready until it succeeds. It fails at once, naming the component, if any process in
// running exits meanwhile, and when ctx is done, with p's name, log and the last probe error.
func waitReady(ctx context.Context, p *process, running []*process, ready probe) error {
	ticker := time.NewTicker(readyPollInterval)
	defer ticker.Stop()
	for {
		for _, r := range running {
			if err := r.exitError(); err != nil {
				return err
			}
		}
		err := ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return p.errorf("not ready: %w (last probe: %v)", ctx.Err(), err)
		case <-ticker.C:
		}
	}
}

// newProbeClient returns the HTTP client of the probes: loopback only, self-signed certificates.
func newProbeClient() *http.Client {
	return &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
}

// httpProbe returns a probe that GETs url (with the bearer token, if any) and wants 200 and "ok".
func httpProbe(client *http.Client, url, token string) probe {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("GET %s: %w", url, err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("GET %s: %w", url, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if err != nil {
			return fmt.Errorf("GET %s: read body: %w", url, err)
		}
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "ok" {
			return fmt.Errorf("GET %s: %s: %.200s", url, resp.Status, body)
		}
		return nil
	}
}
