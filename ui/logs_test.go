package ui_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

// eventually draws until the screen shows every text: the log stream fills the view from its
// own goroutine.
func (h *harness) eventually(texts ...string) {
	h.t.Helper()
	eventually.True(h.t, 10*time.Second, fmt.Sprintf("the screen showing %q", texts), func(context.Context) (bool, string) {
		screen := h.draw()
		for _, s := range texts {
			if !strings.Contains(screen, s) {
				return false, fmt.Sprintf("no %q in\n%s", s, screen)
			}
		}
		return true, ""
	})
}

// sidecarPod adds a running pod with an init container and two containers.
func sidecarPod(h *harness) {
	h.fake.Cluster.UpdatePod(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "sidecar-0", UID: "sidecar-0", CreationTimestamp: metav1.NewTime(uitest.Now())},
		Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "migrate"}},
			Containers: []corev1.Container{{Name: "web"}, {Name: "envoy"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	})
}

func TestLogs(t *testing.T) {
	h := small(t, 160, 30)
	h.keys(":pods<Enter>l")
	// One container: no picker, the last lines of the stream, following.
	h.eventually("follow:on wrap:off timestamps:off previous:off", "current app line 40: GET /static/app.js 500", "40 lines, stream ended")
	h.lacks("line 01")
	if calls := h.fake.Calls(); !strings.HasPrefix(calls[len(calls)-1], "logs ") {
		t.Fatalf("calls = %v, want a logs call last", calls)
	}

	for _, tc := range []struct {
		name, keys string
		has, lacks []string
	}{
		{"timestamps restart the stream", "t", []string{"timestamps:on", "2026-03-14T12:00:39Z current app line 40"}, nil},
		{"previous streams the previous instance", "p", []string{"previous:on", "previous app line 40"}, []string{"current app line 40"}},
		{"previous again", "p", []string{"previous:off", "current app line 40"}, nil},
		{"follow off keeps the view where it is", "fgg", []string{"follow:off", "current app line 01"}, nil},
		{"follow on goes to the end", "f", []string{"follow:on", "current app line 40"}, []string{"current app line 01"}},
		{"wrap", "w", []string{"wrap:on"}, nil},
		{"filter keeps matching lines", "/ 404<Enter>", []string{"</ 404>", "8 lines", "GET /api/cart 404"}, []string{"GET / 200"}},
		{"Esc clears the filter", "<Esc>", []string{"40 lines"}, []string{"</ 404>"}},
		{"Esc leaves the logs", "<Esc>", []string{"Pods(all)"}, []string{"Logs "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.t = t
			h.keys(tc.keys)
			h.eventually(tc.has...)
			h.lacks(tc.lacks...)
		})
	}
}

func TestLogsContainerPicker(t *testing.T) {
	h := small(t, 160, 30)
	sidecarPod(h)
	h.keys(":pods<Enter>/sidecar<Enter>l")
	h.has("Container of shop/sidecar-0 (logs)", "migrate", "init", "envoy")
	h.keys("<Down><Enter>")
	h.eventually("Logs shop/sidecar-0 (envoy)", "current envoy line 40")
	h.keys("<Esc>")
	h.has("Pods(all)")
	h.lacks("Container of")
}

func TestLogsFilterRejectsBadInput(t *testing.T) {
	h := small(t, 160, 30)
	h.keys(":pods<Enter>l")
	h.eventually("40 lines")
	h.keys("/-l app=web<Enter>")
	h.has("log lines have no labels", "40 lines")
	h.keys("/[<Enter>")
	h.has(`filter "[": error parsing regexp`)
}

func TestLogsSave(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	h := small(t, 200, 30)
	h.keys(":pods<Enter>l")
	h.eventually("40 lines, stream ended")
	h.keys("/healthz<Enter><Ctrl-S>")
	dir := filepath.Join(state, "nodepilot", "logs")
	h.has("saved 8 lines to " + dir)
	files, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil || len(files) != 1 {
		t.Fatalf("saved files = %v, %v; want one", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 8 || !strings.Contains(lines[0], "GET /healthz 200") {
		t.Fatalf("saved %d lines, first %q; want the 8 healthz lines", len(lines), lines[0])
	}
}

func TestLogsOnlyOnPods(t *testing.T) {
	h := small(t, 160, 30)
	h.keys(":nodes<Enter>l")
	h.lacks("Logs ")
	for _, c := range h.fake.Calls() {
		if strings.HasPrefix(c, "logs") {
			t.Fatalf("l on a node called %q", c)
		}
	}
}

// TestGoldenLogs draws the log view once its stream has ended (it fills from a goroutine).
func TestGoldenLogs(t *testing.T) {
	h := small(t, 140, 24)
	h.keys(":pods<Enter>l")
	h.eventually("stream ended")
	h.golden("logs")
}
