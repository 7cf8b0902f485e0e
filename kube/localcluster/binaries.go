package localcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The versions of the control plane binaries. They must match K8S_VERSION and KWOK_VERSION in
// hack/build-k8s-bins.sh, which builds them (and metrics-server, METRICS_SERVER_VERSION) into the
// folder BinDir returns.
const (
	kubernetesVersion = "v1.37.2"
	kwokVersion       = "v0.8.0"
)

// The names of the processes of the control plane, which are also the names of their binaries in
// BinDir and, with ".log", of their log files in Cluster.Dir.
const (
	etcdName       = "etcd"
	apiserverName  = "kube-apiserver"
	schedulerName  = "kube-scheduler"
	controllerName = "kube-controller-manager"
	kwokName       = "kwok"
	// metricsServerName runs only when Options.MetricsServer asks for it.
	metricsServerName = "metrics-server"
)

// buildHint tells the user how to get missing binaries.
const buildHint = "run `make k8s-bins` (first build ~25 min)"

// BinDir returns the folder holding the control plane binaries, computed as hack/build-k8s-bins.sh
// does: $NODEPILOT_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/nodepilot, then
// k8s-bins/<kubernetes version>-kwok-<kwok version>. It does not check that the folder exists.
func BinDir() (string, error) {
	root := os.Getenv("NODEPILOT_CACHE")
	if root == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home := os.Getenv("HOME")
			if home == "" {
				return "", errors.New("localcluster: neither NODEPILOT_CACHE, XDG_CACHE_HOME nor HOME is set")
			}
			cache = filepath.Join(home, ".cache")
		}
		root = filepath.Join(cache, "nodepilot")
	}
	return filepath.Join(root, "k8s-bins", kubernetesVersion+"-kwok-"+kwokVersion), nil
}

// binaries maps each component name to the path of its executable.
type binaries map[string]string

// findBinaries checks that dir holds every component's executable. The error lists all the missing
// ones and says how to build them.
func findBinaries(dir string) (binaries, error) {
	bins := binaries{}
	var missing []string
	for _, name := range []string{etcdName, apiserverName, schedulerName, controllerName, kwokName, metricsServerName} {
		path := filepath.Join(dir, name)
		info, err := os.Stat(path)
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			missing = append(missing, name)
			continue
		}
		bins[name] = path
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("localcluster: %s missing from %s: %s", strings.Join(missing, ", "), dir, buildHint)
	}
	return bins, nil
}
