package localcluster

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStartFailureNamesComponent runs Start against fake binaries (shell scripts) that fail in
// chosen ways, and checks the error names the component at fault and its log, and that nothing is
// left running.
func TestStartFailureNamesComponent(t *testing.T) {
	// Each script records its PID in the cluster folder, then behaves.
	const (
		hang = "#!/bin/sh\necho $$ > \"$(basename \"$0\").pid\"\nexec sleep 600\n"
		fail = "#!/bin/sh\necho $$ > \"$(basename \"$0\").pid\"\necho 'boom: cannot listen' >&2\nexit 3\n"
	)
	tests := []struct {
		name    string
		scripts map[string]string // binary name -> script; the others hang
		want    []string          // substrings of the error, with DIR for the cluster's folder
	}{
		{
			name:    "etcd exits",
			scripts: map[string]string{etcdName: fail},
			want:    []string{"etcd (log DIR/etcd.log)", "exited unexpectedly", "exit status 3", "its log ends:\n\tboom: cannot listen"},
		},
		{
			name: "api server never ready",
			want: []string{"kube-apiserver (log DIR/kube-apiserver.log)", "not ready", "deadline exceeded"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin, dir := t.TempDir(), t.TempDir()
			for _, name := range []string{etcdName, apiserverName, schedulerName, controllerName, kwokName, metricsServerName} {
				script, ok := tt.scripts[name]
				if !ok {
					script = hang
				}
				if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}

			c, err := Start(t.Context(), Options{Dir: dir, BinDir: bin, StartTimeout: 2 * time.Second})
			if err == nil {
				_ = c.Stop()
				t.Fatal("Start succeeded with broken binaries")
			}
			t.Logf("Start: %v", err)
			for _, want := range tt.want {
				if want = strings.ReplaceAll(want, "DIR", dir); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			pidFiles, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
			if len(pidFiles) == 0 {
				t.Fatal("no fake component ever started")
			}
			for _, f := range pidFiles {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if alive(pid) {
					t.Errorf("%s (pid %d) still running after Start failed", filepath.Base(f), pid)
				}
			}
		})
	}
}

// TestLogTail checks what an exit error quotes of a component's log: its last lines that are not
// blank, never more than tailLines of the last tailLines*lineBytes bytes, and nothing for a log
// that is empty or missing.
func TestLogTail(t *testing.T) {
	long := strings.Repeat("x", tailLines*lineBytes)
	tests := []struct {
		name    string
		missing bool // no log file at all
		log     string
		want    string
	}{
		{"no log", true, "", ""},
		{"empty", false, "", ""},
		{"blank lines only", false, "\n  \n", ""},
		{"one line", false, "listen tcp 127.0.0.1:2379: bind: address already in use\n",
			"; its log ends:\n\tlisten tcp 127.0.0.1:2379: bind: address already in use"},
		{"the last five lines", false, "1\n2\n3\n\n4\n5\n6\n7\n", "; its log ends:\n\t3\n\t4\n\t5\n\t6\n\t7"},
		{"a line cut at the start of the last bytes", false, "first\n" + long + "\nlast\n",
			"; its log ends:\n\t" + long[len("\nlast\n"):] + "\n\tlast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "component.log")
			if !tt.missing {
				if err := os.WriteFile(path, []byte(tt.log), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := logTail(path); got != tt.want {
				t.Errorf("logTail = %q, want %q", got, tt.want)
			}
		})
	}
}
