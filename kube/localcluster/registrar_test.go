package localcluster

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// nodeNames lists the names of the nodes in client, sorted.
func nodeNames(t *testing.T, r registrar) []string {
	t.Helper()
	list, err := r.nodes.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list nodes: %v", err)
	}
	var names []string
	for _, n := range list.Items {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}

func TestRegistrarSync(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	a := Instance{ID: "i-a", Zone: "us-east-1a", Region: "us-east-1", LaunchedAt: t0}
	b := Instance{ID: "i-b", Zone: "us-east-1b", Region: "us-east-1", LaunchedAt: t0.Add(10 * time.Second)}
	static := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "static", Labels: map[string]string{KwokNodeLabel: KwokNodeValue}}}

	src := &fakeInstances{}
	client := fake.NewClientset(static)
	r := registrar{nodes: client.CoreV1().Nodes(), src: src, joinDelay: 5 * time.Second, log: slog.New(slog.DiscardHandler)}

	steps := []struct {
		name    string
		running []Instance
		at      time.Time
		delete  string // a node deleted by someone else before the pass
		want    []string
	}{
		{name: "too young to join", running: []Instance{a}, at: t0.Add(4 * time.Second), want: []string{"static"}},
		{name: "joins after joinDelay", running: []Instance{a}, at: t0.Add(5 * time.Second), want: []string{"i-a.ec2.internal", "static"}},
		{name: "idempotent", running: []Instance{a, b}, at: t0.Add(6 * time.Second), want: []string{"i-a.ec2.internal", "static"}},
		{name: "second joins", running: []Instance{a, b}, at: t0.Add(15 * time.Second), want: []string{"i-a.ec2.internal", "i-b.ec2.internal", "static"}},
		{name: "deleted node of a running instance comes back", running: []Instance{a, b}, at: t0.Add(16 * time.Second), delete: "i-a.ec2.internal", want: []string{"i-a.ec2.internal", "i-b.ec2.internal", "static"}},
		{name: "gone instance loses its node, others stay", running: []Instance{b}, at: t0.Add(17 * time.Second), want: []string{"i-b.ec2.internal", "static"}},
		{name: "no instances", at: t0.Add(18 * time.Second), want: []string{"static"}},
	}
	for _, step := range steps {
		if step.delete != "" {
			if err := client.CoreV1().Nodes().Delete(ctx, step.delete, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("%s: delete %s: %v", step.name, step.delete, err)
			}
		}
		src.set(step.running...)
		if err := r.sync(ctx, step.at); err != nil {
			t.Fatalf("%s: sync: %v", step.name, err)
		}
		if got := nodeNames(t, r); !slices.Equal(got, step.want) {
			t.Fatalf("%s: nodes = %v, want %v", step.name, got, step.want)
		}
	}
}

func TestRegistrarSyncErrors(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	src := &fakeInstances{}
	r := registrar{nodes: fake.NewClientset().CoreV1().Nodes(), src: src, log: slog.New(slog.DiscardHandler)}

	src.set(Instance{ID: "i-ok", LaunchedAt: now}, Instance{ID: "", LaunchedAt: now})
	err := r.sync(ctx, now)
	if err == nil {
		t.Fatal("sync: no error for an instance without ID")
	}
	if got := nodeNames(t, r); !slices.Equal(got, []string{"i-ok"}) {
		t.Errorf("after a bad instance, nodes = %v, want [i-ok]: one bad instance must not stop the others", got)
	}

	boom := errors.New("emulator down")
	src.fail(boom)
	if err := r.sync(ctx, now); !errors.Is(err, boom) {
		t.Errorf("sync with a failing source = %v, want it to wrap %v", err, boom)
	}
	if got := nodeNames(t, r); !slices.Equal(got, []string{"i-ok"}) {
		t.Errorf("after a failed listing, nodes = %v, want [i-ok] untouched", got)
	}
}
