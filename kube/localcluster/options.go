package localcluster

import (
	"log/slog"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// DefaultStartTimeout bounds Start when Options.StartTimeout is zero. A warm start takes seconds; the
// margin is for a loaded 2-core machine.
const DefaultStartTimeout = 2 * time.Minute

// stopGrace is how long Stop lets the components exit after SIGTERM before it SIGKILLs them.
const stopGrace = 3 * time.Second

// Options configure Start. The zero value starts a cluster in a new temporary folder.
type Options struct {
	// Dir is the folder for the cluster's files: etcd data, certificates, kubeconfig and one log per
	// component (etcd.log, kube-apiserver.log, ...). Empty means a new folder from os.MkdirTemp.
	Dir string
	// BinDir holds the binaries. Empty means BinDir().
	BinDir string
	// CRDs are installed, and Established, before Start returns.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// KubeconfigOut, if set, is a second path the admin kubeconfig is written to (for
	// `nodepilot demo --kubeconfig-out`).
	KubeconfigOut string
	// Logger receives progress and RegisterNodes' errors. Nil discards them.
	Logger *slog.Logger
	// StartTimeout bounds Start on top of its context. Zero means DefaultStartTimeout.
	StartTimeout time.Duration
	// MetricsServer runs metrics-server behind the API aggregation layer: metrics.k8s.io (kubectl
	// top, the HorizontalPodAutoscaler's resource metrics) from the usage kwok simulates.
	MetricsServer bool
}
