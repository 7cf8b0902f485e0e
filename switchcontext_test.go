package main

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/nodepilot/nodepilot/app"
	"github.com/nodepilot/nodepilot/aws"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/internal/apitest"
	"github.com/nodepilot/nodepilot/ui"
)

// TestContextOptions: after a switch the App keeps the kubeconfig, the modes and the autoscaler
// options, and takes the cluster name and region from the new context only, never from the flags
// that named the first cluster; the interruption queue is dropped, and the note says so.
func TestContextOptions(t *testing.T) {
	as := autoscaler.DefaultOptions()
	as.DryRun = true
	first := app.Options{Kubeconfig: "/k", Context: "prod", ClusterName: "prod-eu", AWS: aws.ConfigOptions{Region: "eu-west-1", IMDSRegion: true},
		QueueName: "prod-interruptions", Autoscaler: as, Usage: true}
	for _, tc := range []struct {
		name                 string
		prev                 app.Options
		context, eks, region string
		wantName, wantRegion string
		wantNote             string
	}{
		{name: "an EKS context names its cluster", prev: first, context: "staging", eks: "staging-us", region: "us-east-2",
			wantName: "staging-us", wantRegion: "us-east-2", wantNote: "--interruption-queue prod-interruptions belonged to the first cluster: not read on context staging"},
		{name: "not EKS: no name, no region, not the first cluster's", prev: first, context: "kind-dev",
			wantNote: "--interruption-queue prod-interruptions belonged to the first cluster: not read on context kind-dev"},
		{name: "no queue, no note", prev: app.Options{Kubeconfig: "/k", ClusterName: "a", ReadOnly: true}, context: "b", eks: "b", region: "eu-north-1",
			wantName: "b", wantRegion: "eu-north-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note := contextOptions(tc.prev, tc.context, tc.eks, tc.region)
			if got.Context != tc.context || got.ClusterName != tc.wantName || got.AWS.Region != tc.wantRegion || got.QueueName != "" || note != tc.wantNote {
				t.Errorf("context %q cluster %q region %q queue %q note %q; want %q %q %q no queue, note %q",
					got.Context, got.ClusterName, got.AWS.Region, got.QueueName, note, tc.context, tc.wantName, tc.wantRegion, tc.wantNote)
			}
			// Everything else stays: the kubeconfig, the modes, the autoscaler's options.
			want := tc.prev
			want.Context, want.ClusterName, want.AWS.Region, want.QueueName = got.Context, got.ClusterName, got.AWS.Region, got.QueueName
			if got.Kubeconfig != want.Kubeconfig || got.ReadOnly != want.ReadOnly || got.Autoscaler.DryRun != want.Autoscaler.DryRun ||
				got.AWS != want.AWS || got.Usage != want.Usage || got.Autoscaler.Provisioning.BatchIdle != want.Autoscaler.Provisioning.BatchIdle {
				t.Errorf("options changed beyond the cluster: %+v, want %+v", got, want)
			}
		})
	}
}

// TestSwitchingContexts runs the loop with Apps over a fake API server (read-only, no AWS): a
// switch opens the new context; a switch to a context whose App cannot be built reopens the
// previous one with a flash saying why; the console's own end ends the loop.
func TestSwitchingContexts(t *testing.T) {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	api := apitest.VersionOnly(t)
	cfg := clientcmdapi.NewConfig()
	for _, name := range []string{"a", "b"} {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: api.URL}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name}
	}
	cfg.CurrentContext = "a"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}

	type opened struct{ context, flash string }
	var got []opened
	// The operator switches to b, then to gone (not in the kubeconfig), then quits.
	script := []error{ui.SwitchContext{Name: "b"}, ui.SwitchContext{Name: "gone"}, nil}
	run := func(_ context.Context, a *app.App, o app.Options, flash string) error {
		got = append(got, opened{o.Context, flash})
		if a == nil || len(got) > len(script) {
			return errors.New("unexpected run")
		}
		return script[len(got)-1]
	}
	opts := app.Options{Kubeconfig: path, ReadOnly: true, QueueName: "q", Logger: slog.New(slog.DiscardHandler)}
	if err := switchingContexts(context.Background(), opts, opts.Logger, run); err != nil {
		t.Fatal(err)
	}
	want := []opened{
		{"", ""},
		{"b", "--interruption-queue q belonged to the first cluster: not read on context b"},
		{"b", "switching to context gone failed, back on b: "},
	}
	if len(got) != len(want) || !slices.EqualFunc(got[:2], want[:2], func(a, b opened) bool { return a == b }) ||
		got[2].context != "b" || !strings.HasPrefix(got[2].flash, want[2].flash) || !strings.Contains(got[2].flash, `context "gone" is not one of its contexts (a, b)`) {
		t.Errorf("opened %q, want %q (the last flash naming why)", got, want)
	}
}
