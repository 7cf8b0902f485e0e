package localcluster

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/kube"
)

// testPodStreams runs a pod on a kwok node and reads its logs and runs a command in it through
// kube.PodLogs and kube.Exec, the console's own code: the API server reaches kwok's server as
// the node's kubelet, and kwok answers from the ClusterLogs and ClusterExec the cluster wrote.
func testPodStreams(t *testing.T, c *Cluster, client kubernetes.Interface) {
	src := &fakeInstances{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.RegisterNodes(ctx, src, 0) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RegisterNodes: %v", err)
		}
	}()
	inst := Instance{ID: "i-0fedcba9876543210", Zone: "us-east-1b", Region: "us-east-1", InstanceType: "m5.large",
		CapacityType: "on-demand", Arch: "amd64", OS: "linux", LaunchedAt: time.Now(),
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29")}}
	src.set(inst)
	node := NodeName(inst)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-streams"},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "web", Image: "nginx"}},
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}}
	eventually.True(t, 20*time.Second, "pod web-streams created on "+node, func(ctx context.Context) (bool, string) {
		if _, err := client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	// kwok writes the pod's phase and the node's addresses in separate stages, and the API server
	// reaches a pod's logs and exec through its node's address: wait for both.
	eventually.True(t, 20*time.Second, "pod web-streams running on a node with an address", func(ctx context.Context) (bool, string) {
		p, err := client.CoreV1().Pods("default").Get(ctx, "web-streams", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if p.Status.Phase != corev1.PodRunning {
			return false, "pod " + string(p.Status.Phase)
		}
		n, err := client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(n.Status.Addresses) > 0, "node has no address"
	})

	t.Run("Logs", func(t *testing.T) {
		tail := int64(5)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		rc, err := kube.PodLogs(ctx, client, "default", "web-streams", &corev1.PodLogOptions{Container: "web", TailLines: &tail})
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 5 || !strings.Contains(lines[4], "HTTP/1.1\" ") {
			t.Fatalf("the last 5 log lines are %q; want 5 access log lines", lines)
		}
	})
	t.Run("Exec", func(t *testing.T) {
		for _, tc := range []struct {
			name    string
			command []string
			stdin   string
			want    string
		}{
			{"a command", []string{"echo", "hello"}, "", "hello\n"},
			// kwok does not pass the end of stdin on to the command: the shell ends on exit.
			{"a shell reading stdin, in the exec directory", []string{"sh"}, "echo hi\npwd\nexit\n", "hi\n" + ExecDir(c.Dir) + "\n"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				var out, errOut bytes.Buffer
				so := remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut}
				if tc.stdin != "" {
					so.Stdin = strings.NewReader(tc.stdin)
				}
				if err := kube.Exec(ctx, c.RESTConfig(), client, "default", "web-streams", "web", tc.command, so); err != nil {
					t.Fatalf("%v (stderr %q)", err, errOut.String())
				}
				if out.String() != tc.want {
					t.Fatalf("stdout %q, want %q (stderr %q)", out.String(), tc.want, errOut.String())
				}
			})
		}
	})
}
