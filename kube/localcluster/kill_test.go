package localcluster

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nodepilot/nodepilot/internal/eventually"
)

// killChildEnv switches the test binary into the child role of TestParentKilled; its value is the
// cluster's folder.
const killChildEnv = "NODEPILOT_LOCALCLUSTER_KILL_CHILD_DIR"

// pidsPrefix starts the line on which the child prints its components' PIDs.
const pidsPrefix = "localcluster-pids:"

// TestParentKilled re-executes the test binary as a child that starts a cluster and prints the PIDs
// of its components, SIGKILLs the child (no Stop, no cleanup), and checks every component dies with
// it through the parent-death signal.
func TestParentKilled(t *testing.T) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		runKillChild(t, dir)
		return
	}

	binDir, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := findBinaries(binDir); err != nil {
		t.Fatal(err)
	}

	child := exec.Command(os.Args[0], "-test.run=^TestParentKilled$", "-test.count=1", "-test.timeout=5m")
	child.Env = append(os.Environ(), killChildEnv+"="+t.TempDir())
	child.Stderr = os.Stderr
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	// The reader ends when the child's stdout closes, which the child's death guarantees; the
	// deferred function kills the child and drains the reader whatever happens.
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
	}()
	defer func() {
		_ = child.Process.Kill()
		_ = child.Wait()
		for range lines {
		}
	}()

	var line string
	var output []string
	timeout := time.After(DefaultStartTimeout + 30*time.Second)
	for line == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("child exited without printing its cluster's PIDs; it said:\n%s", strings.Join(output, "\n"))
			}
			if rest, found := strings.CutPrefix(l, pidsPrefix); found {
				line = rest
			}
			output = append(output, l)
		case <-timeout:
			t.Fatalf("child did not print its cluster's PIDs in time; it said:\n%s", strings.Join(output, "\n"))
		}
	}
	pids := map[string]int{}
	for _, field := range strings.Fields(line) {
		name, pid, _ := strings.Cut(field, "=")
		n, err := strconv.Atoi(pid)
		if err != nil {
			t.Fatalf("child printed %q: %v", line, err)
		}
		pids[name] = n
	}
	if len(pids) != 5 {
		t.Fatalf("child printed %d PIDs (%q), want 5", len(pids), line)
	}
	for name, pid := range pids {
		if !alive(pid) {
			t.Fatalf("%s (pid %d) not running before the kill", name, pid)
		}
	}

	if err := child.Process.Kill(); err != nil {
		t.Fatalf("SIGKILL child: %v", err)
	}
	_ = child.Wait()
	begin := time.Now()
	eventually.True(t, 5*time.Second, "every component dead after its parent's SIGKILL", func(_ context.Context) (bool, string) {
		var living []string
		for name, pid := range pids {
			if alive(pid) {
				living = append(living, fmt.Sprintf("%s (pid %d)", name, pid))
			}
		}
		return len(living) == 0, "still alive: " + strings.Join(living, ", ")
	})
	t.Logf("all %d components gone %v after the parent's SIGKILL", len(pids), time.Since(begin).Round(time.Millisecond))
}

// runKillChild is the child's side: start a cluster in dir, print the PIDs, wait to be killed.
func runKillChild(t *testing.T, dir string) {
	c, err := Start(t.Context(), Options{Dir: dir})
	if err != nil {
		t.Fatalf("child: Start: %v", err)
	}
	var fields []string
	for _, comp := range c.Components() {
		fields = append(fields, fmt.Sprintf("%s=%d", comp.Name, comp.PID))
	}
	fmt.Println(pidsPrefix + " " + strings.Join(fields, " "))
	time.Sleep(DefaultStartTimeout) // the parent kills this process long before
	t.Error("child: not killed in time")
	_ = c.Stop()
}
