package emulator

import (
	"context"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/internal/eventually"
)

// notifyWriter collects output and signals the first write.
type notifyWriter struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{}
	once  sync.Once
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	w.once.Do(func() { close(w.wrote) })
	return len(p), nil
}

func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	out := &notifyWriter{wrote: make(chan struct{})}
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(c, Config{Clock: clocktesting.NewFakeClock(testStart)}, addr, out) }()
	select {
	case <-out.wrote:
	case err := <-done:
		t.Fatalf("Serve ended early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve printed nothing within 10s")
	}
	out.mu.Lock()
	text := out.b.String()
	out.mu.Unlock()
	for _, want := range []string{"http://" + addr, "/_emulator/faults/capacity", "interruption queue", "synthetic"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if !regexp.MustCompile(`subnet subnet-[0-9a-f]{17} in us-east-1a`).MatchString(text) {
		t.Errorf("output lacks the subnets:\n%s", text)
	}
	cfg := sdkConfig("us-east-1")
	client := ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = aws.String("http://" + addr) })
	if _, err := client.DescribeAvailabilityZones(ctx(t), &ec2.DescribeAvailabilityZonesInput{}); err != nil {
		t.Errorf("call to the served emulator: %v", err)
	}
	cancel()
	if err := eventually.Receive(t, 10*time.Second, "Serve's return after its context ended", done); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if err := Serve(context.Background(), Config{}, "256.0.0.1:1", out); err == nil {
		t.Errorf("Serve on a bad address succeeded")
	}
}

func TestStartRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Zones: []string{"us-east-1z"}},
		{Region: "eu-west-1", Zones: []string{"us-east-1a"}},
		{QueueName: "bad name"},
		{FreeAddresses: -1},
		{BootDelay: -1},
	} {
		if e, err := Start(context.Background(), cfg); err == nil {
			e.Close()
			t.Errorf("Start(%+v) succeeded", cfg)
		}
	}
}

func TestStopsWithContext(t *testing.T) {
	c, cancel := context.WithCancel(context.Background())
	e, err := Start(c, Config{Clock: clocktesting.NewFakeClock(testStart)})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	eventually.Receive(t, 10*time.Second, "the emulator's end after its context ended", e.done)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}
