package metrics

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// buildInfo is karpenter_build_info: the module version, Go version and architecture, and the
// commit the binary was built from (from the Go build information).
func buildInfo() prometheus.Metric {
	version, commit := "unspecified", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	desc := prometheus.NewDesc("karpenter_build_info", "The version nodepilot was built from (always 1).",
		[]string{"version", "goversion", "goarch", "commit"}, nil)
	return prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, 1, version, runtime.Version(), runtime.GOARCH, commit)
}

// syncGauges say whether the cluster state has synced with the API server, and for how long it
// has not.
type syncGauges struct {
	synced, unsynced *prometheus.Desc

	mu    sync.Mutex
	since time.Time // when the state was first seen unsynced; zero while synced
}

func newSyncGauges() *syncGauges {
	return &syncGauges{
		synced:   prometheus.NewDesc("karpenter_cluster_state_synced", "1 when the cluster state holds what the API server holds, 0 otherwise.", nil, nil),
		unsynced: prometheus.NewDesc("karpenter_cluster_state_unsynced_time_seconds", "How long the cluster state has not been synced (0 when synced).", nil, nil),
	}
}

func (g *syncGauges) collect(ch chan<- prometheus.Metric, synced bool, now time.Time) {
	g.mu.Lock()
	switch {
	case synced:
		g.since = time.Time{}
	case g.since.IsZero():
		g.since = now
	}
	unsynced := 0.0
	if !g.since.IsZero() {
		unsynced = now.Sub(g.since).Seconds()
	}
	g.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(g.synced, prometheus.GaugeValue, boolValue(synced))
	ch <- prometheus.MustNewConstMetric(g.unsynced, prometheus.GaugeValue, unsynced)
}
