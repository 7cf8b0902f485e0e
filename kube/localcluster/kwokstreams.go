package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Pod logs and exec in the local cluster. kwok plays every node's kubelet, so the API server's
// pods/log and pods/exec reach kwok's server, which answers from its ClusterLogs and ClusterExec
// configuration: every pod's logs are one file the cluster writes (a web server's access log), and
// exec runs the command ON THIS MACHINE, as the user who started the cluster, in ExecDir with a
// small environment. kwok v0.8 runs it with pipes, never a terminal, whatever the client asks.

// ExecDir is the working directory of every exec in the cluster in dir (its HOME too).
func ExecDir(dir string) string { return filepath.Join(dir, "exec") }

// PodLogFile is the file every pod's logs are read from in the cluster in dir.
func PodLogFile(dir string) string { return filepath.Join(dir, "pod-logs", "web.log") }

// podLogLines is how many lines the pod log file starts with.
const podLogLines = 300

// kwokStreams is the ClusterLogs and ClusterExec configuration for every pod; %[1]s is the log
// file, %[2]s the exec directory.
const kwokStreams = `# Every pod's logs are one access log the local cluster writes; exec runs the command on this
# machine in a directory of the cluster's, with a small environment (kube/localcluster/kwokstreams.go).
kind: ClusterLogs
apiVersion: kwok.x-k8s.io/v1alpha1
metadata:
  name: every-pod
spec:
  logs:
  - logsFile: %[1]q
    follow: true
---
kind: ClusterExec
apiVersion: kwok.x-k8s.io/v1alpha1
metadata:
  name: every-pod
spec:
  execs:
  - local:
      workDir: %[2]q
      envs:
      - {name: HOME, value: %[2]q}
      - {name: PATH, value: "/usr/local/bin:/usr/bin:/bin"}
      - {name: PS1, value: "demo$ "}
      - {name: ENV, value: ""}
`

// writeKwokStreams writes the pod log file, the exec directory and the configuration that
// points kwok at them.
func writeKwokStreams(l layout, now time.Time) error {
	logFile, execDir := PodLogFile(l.dir), ExecDir(l.dir)
	for _, d := range []string{filepath.Dir(logFile), execDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("localcluster: create %s: %w", d, err)
		}
	}
	if err := os.WriteFile(logFile, []byte(accessLog(now, podLogLines)), 0o600); err != nil {
		return fmt.Errorf("localcluster: write pod log %s: %w", logFile, err)
	}
	if err := os.WriteFile(l.kwokStreams, []byte(fmt.Sprintf(kwokStreams, logFile, execDir)), 0o644); err != nil {
		return fmt.Errorf("localcluster: write kwok configuration %s: %w", l.kwokStreams, err)
	}
	return nil
}

// accessLog is n lines of a web server's access log ending at now, in the CRI log format kwok
// reads ("TIME STREAM F TEXT"), varied but deterministic.
func accessLog(now time.Time, n int) string {
	type req struct {
		method, path string
		status, size int
	}
	reqs := []req{{"GET", "/", 200, 612}, {"GET", "/api/orders", 200, 2048}, {"POST", "/api/orders", 201, 128},
		{"GET", "/healthz", 200, 2}, {"GET", "/api/cart/42", 404, 19}, {"GET", "/static/app.js", 304, 0},
		{"PUT", "/api/cart/7", 200, 311}, {"GET", "/api/orders/991", 500, 57}}
	agents := []string{"Mozilla/5.0 (X11; Linux x86_64)", "kube-probe/1.33", "curl/8.5.0"}
	var b strings.Builder
	for i := range n {
		at := now.Add(-time.Duration(n-i) * 2 * time.Second).UTC()
		h := uint32(i+1) * 2654435761 // Knuth's multiplicative hash: varied, the same every run
		r := reqs[int(h>>24)%len(reqs)]
		stream := "stdout"
		if r.status >= 500 {
			stream = "stderr"
		}
		fmt.Fprintf(&b, "%s %s F 10.64.%d.%d - - [%s] \"%s %s HTTP/1.1\" %d %d \"-\" \"%s\"\n", at.Format(time.RFC3339Nano), stream,
			(h>>8)%4, 10+h%200, at.Format("02/Jan/2006:15:04:05 -0700"), r.method, r.path, r.status, r.size, agents[int(h>>16)%len(agents)])
	}
	return b.String()
}
