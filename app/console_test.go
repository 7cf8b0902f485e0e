package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/nodepilot/nodepilot/internal/apitest"
)

// TestCheckContext: a context whose API server answers /version passes; one that is unknown,
// refuses connections or does not answer in time fails with an error naming it and the cause.
// Unless read-only, a context must name an EKS cluster too.
func TestCheckContext(t *testing.T) {
	up := apitest.VersionOnly(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(release) })
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"kind":"Status","status":"Failure","reason":"Forbidden","code":403}`, http.StatusForbidden)
	}))
	t.Cleanup(forbidden.Close)

	cfg := clientcmdapi.NewConfig()
	for name, server := range map[string]string{"up": up.URL, "down": down.URL, "hung": hung.URL, "forbidden": forbidden.URL} {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: "token"}
	}
	eksCluster := "arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu"
	cfg.Clusters[eksCluster] = &clientcmdapi.Cluster{Server: up.URL}
	cfg.Contexts["eks"] = &clientcmdapi.Context{Cluster: eksCluster, AuthInfo: "up"}
	cfg.CurrentContext = "up"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	readOnly := (&App{opts: Options{Kubeconfig: path, ReadOnly: true}}).Console("up")
	acting := (&App{opts: Options{Kubeconfig: path}}).Console("up")

	for _, tc := range []struct {
		context string
		c       *Console
		wantErr []string // the error contains each; none: no error
	}{
		{context: "up", c: readOnly},
		{context: "down", c: readOnly, wantErr: []string{"context down: ", down.URL, "connection refused"}},
		{context: "hung", c: readOnly, wantErr: []string{"context hung: ", hung.URL, "exceeded"}},
		{context: "forbidden", c: readOnly, wantErr: []string{"context forbidden: ", "forbidden"}},
		{context: "nosuch", c: readOnly, wantErr: []string{"context nosuch: ", `context "nosuch" is not one of its contexts (down, eks, forbidden, hung, up)`}},
		{context: "eks", c: acting},
		{context: "up", c: acting, wantErr: []string{"context up names no EKS cluster", "nodepilot --context up --cluster-name NAME"}},
	} {
		t.Run(tc.context+map[bool]string{true: " read-only", false: ""}[tc.c == readOnly], func(t *testing.T) {
			c := tc.c
			start := time.Now()
			err := c.checkContext(context.Background(), tc.context, 300*time.Millisecond)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the check took %s, past its timeout", took)
			}
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("CheckContext(%s): %v", tc.context, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckContext(%s) passed, want an error", tc.context)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}

	names, current, err := acting.Contexts()
	if err != nil || !slices.Equal(names, []string{"down", "eks", "forbidden", "hung", "up"}) || current != "up" {
		t.Errorf("Contexts = %q, %q, %v; want the five sorted, up current", names, current, err)
	}
}
