package aws

import (
	"context"
	"strings"
	"testing"
)

// TestRefuseWrites: through clients built on RefuseWrites, a launch and an instance profile
// never reach AWS, while reads still work.
func TestRefuseWrites(t *testing.T) {
	env := startEmulator(t, nil)
	cfg := RefuseWrites(testSDKConfig(t, env.em.HTTPClient()), "read-only")
	p := env.newProvider(t, NewClients(cfg, Endpoints{}.All(env.em.Endpoint()), quietLog()))
	ctx := context.Background()
	env.em.ResetCallCounts()

	if _, err := p.InstanceTypes(ctx, testNodePool()); err != nil {
		t.Fatalf("reads must pass: %v", err)
	}
	if _, err := p.Create(ctx, testNodeClaim("refused")); err == nil || !strings.Contains(err.Error(), "nodepilot runs read-only") {
		t.Errorf("Create: %v, want a refusal naming the mode", err)
	}
	for op, n := range env.em.CallCounts() {
		if !IsRead(op) {
			t.Errorf("the emulator received %d %s call(s) through refusing clients", n, op)
		}
	}
}

func TestIsRead(t *testing.T) {
	for op, want := range map[string]bool{
		"DescribeInstances": true, "GetInstanceProfile": true, "ListInstanceProfiles": true, "ReceiveMessage": false,
		"CreateFleet": false, "TerminateInstances": false, "CreateInstanceProfile": false, "AddRoleToInstanceProfile": false,
		"DeleteMessage": false, "CreateLaunchTemplate": false, "RunInstances": false,
	} {
		if got := IsRead(op); got != want {
			t.Errorf("IsRead(%q) = %v, want %v", op, got, want)
		}
	}
}

// TestNewNeedsAnExecutor: a provider without Act would perform its own writes (instance
// profiles, queue deletions) around the executor, so New refuses it.
func TestNewNeedsAnExecutor(t *testing.T) {
	env := startEmulator(t, nil)
	opts := env.cfg
	opts.Act = nil
	if _, err := New(env.clients, opts); err == nil || !strings.Contains(err.Error(), "executor (Act) is required") {
		t.Errorf("New without Act: %v, want it refused", err)
	}
}
