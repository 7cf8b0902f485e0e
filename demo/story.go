package demo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/nodepilot/nodepilot/aws/emulator"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/state"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// storyDeployment is the Deployment the story scales.
const storyDeployment = "default/inflate"

// Story plays the demo's script, act after act, in a loop: inflate scales out onto a new node,
// is scaled to zero and consolidation takes the node away, scales out again, and a spot
// interruption takes its node back while a replacement runs the pods. Each act waits for what it
// shows (or gives up after a few minutes, saying so); with autoplay off the story holds before
// the next act and the demo is driven by hand.
type Story struct {
	env      *Environment
	autoplay atomic.Bool

	mu     sync.Mutex
	status string
	// node is the node inflate ran on when its act began.
	node string
}

// act is one step: what it does, then what it waits for (true when done, else what it sees).
type act struct {
	title   string
	do      func(ctx context.Context, s *Story) error
	done    func(s *Story, snap *state.Snapshot) (bool, string)
	timeout time.Duration
}

// NewStory returns the environment's story, playing when autoplay is true.
func (e *Environment) NewStory(autoplay bool) *Story {
	s := &Story{env: e, status: "starting"}
	s.autoplay.Store(autoplay)
	return s
}

// Autoplay reports whether the story plays.
func (s *Story) Autoplay() bool { return s.autoplay.Load() }

// SetAutoplay starts or holds the story.
func (s *Story) SetAutoplay(on bool) { s.autoplay.Store(on) }

// Status is the story's line for the console ("act 2 of 4: ...").
func (s *Story) Status() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

func (s *Story) setStatus(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = fmt.Sprintf(format, args...)
}

func (s *Story) acts() []act {
	return []act{
		scaleOut("inflate scales out onto a new node"),
		{title: "inflate is scaled to zero: consolidation takes its node away", timeout: 4 * time.Minute,
			do: func(ctx context.Context, s *Story) error { return s.env.SetReplicas(ctx, storyDeployment, 0) },
			done: func(s *Story, snap *state.Snapshot) (bool, string) {
				if snap.NodeByName(s.node) == nil {
					return true, ""
				}
				e, ok := s.env.App.Journal.WhyNot(s.node)
				if !ok {
					return false, fmt.Sprintf("node %s: waiting for consolidateAfter and the 15 s validation", s.node)
				}
				// A budget of 0 holds the node (the seeds' general-purpose NodePool has one during
				// business hours): the next act lifts it.
				return e.Reason == disruption.BlockedBudget, fmt.Sprintf("node %s: %s: %s", s.node, e.Reason, strings.TrimPrefix(e.Message, s.node+": "))
			}},
		{title: "if a budget holds the node, the operator lifts it (kubectl patch) and the node goes", timeout: 3 * time.Minute,
			do: func(ctx context.Context, s *Story) error {
				sn := s.env.App.Cluster.Snapshot().NodeByName(s.node)
				if e, ok := s.env.App.Journal.WhyNot(s.node); sn == nil || !ok || e.Reason != disruption.BlockedBudget {
					return nil
				}
				_, err := s.env.clients.NodePools.Patch(ctx, sn.NodePool(), []byte(`{"spec":{"disruption":{"budgets":[{"nodes":"10%"}]}}}`), false)
				return err
			},
			done: func(s *Story, snap *state.Snapshot) (bool, string) {
				if snap.NodeByName(s.node) == nil {
					return true, ""
				}
				return false, fmt.Sprintf("node %s still there", s.node)
			}},
		scaleOut("inflate scales out again"),
		{title: "a spot interruption takes inflate's node back; a replacement runs its pods", timeout: 4 * time.Minute,
			do: func(ctx context.Context, s *Story) error {
				sn := s.env.App.Cluster.Snapshot().NodeByName(s.node)
				if sn == nil || sn.Labels()[karpv1.CapacityTypeLabelKey] != karpv1.CapacityTypeSpot {
					s.node = "" // on-demand this time: nothing to interrupt
					return nil
				}
				return s.env.Interrupt(ctx, s.node)
			},
			done: func(s *Story, snap *state.Snapshot) (bool, string) {
				if s.node == "" {
					return true, "inflate runs on on-demand capacity this time: no spot node to interrupt"
				}
				n, _ := runningOf(snap, "inflate-")
				if snap.NodeByName(s.node) == nil && n == 5 {
					return true, ""
				}
				return false, fmt.Sprintf("node %s interrupted, %d of 5 pods running", s.node, n)
			}},
		{title: "the story starts again in 30 s", timeout: 30 * time.Second,
			done: func(*Story, *state.Snapshot) (bool, string) { return false, "" }},
	}
}

// scaleOut is the act that scales inflate to five replicas and remembers the node they run on.
func scaleOut(title string) act {
	return act{title: title, timeout: 3 * time.Minute,
		do: func(ctx context.Context, s *Story) error { return s.env.SetReplicas(ctx, storyDeployment, 5) },
		done: func(s *Story, snap *state.Snapshot) (bool, string) {
			n, node := runningOf(snap, "inflate-")
			s.node = node
			if n == 5 {
				return true, ""
			}
			return false, fmt.Sprintf("%d of 5 pods running", n)
		}}
}

// Run plays the story until ctx ends.
func (s *Story) Run(ctx context.Context) {
	changes := s.env.App.Cluster.Subscribe()
	for ctx.Err() == nil {
		acts := s.acts()
		for i, a := range acts {
			prefix := fmt.Sprintf("act %d of %d: %s", i+1, len(acts), a.title)
			for !s.Autoplay() {
				s.setStatus("autoplay off (a plays): next, %s", prefix)
				if !sleep(ctx, 200*time.Millisecond) {
					return
				}
			}
			if a.do != nil && !s.perform(ctx, a, prefix) {
				return
			}
			if !s.await(ctx, a, prefix, changes) {
				return
			}
		}
	}
}

// perform does the act's action, trying again every 5 s while it fails (the status says why);
// false when ctx ended.
func (s *Story) perform(ctx context.Context, a act, prefix string) bool {
	for {
		err := a.do(ctx, s)
		if err == nil {
			return true
		}
		s.setStatus("%s: %v (trying again in 5 s)", prefix, err)
		if !sleep(ctx, 5*time.Second) {
			return false
		}
	}
}

// await waits until the act is done or its time is up; false when ctx ended.
func (s *Story) await(ctx context.Context, a act, prefix string, changes <-chan struct{}) bool {
	start := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		done, seen := a.done(s, s.env.App.Cluster.Snapshot())
		elapsed := time.Since(start).Truncate(time.Second)
		switch {
		case done && seen != "":
			s.setStatus("%s: %s", prefix, seen)
			return sleep(ctx, 5*time.Second)
		case done:
			s.setStatus("%s: done in %s", prefix, elapsed)
			return sleep(ctx, 5*time.Second)
		case elapsed >= a.timeout && seen != "":
			s.setStatus("%s: gave up after %s (%s); see :events", prefix, a.timeout, seen)
			return sleep(ctx, 5*time.Second)
		case elapsed >= a.timeout:
			return true
		case seen != "":
			s.setStatus("%s (%s): %s", prefix, elapsed, seen)
		default:
			s.setStatus("%s (%s)", prefix, elapsed)
		}
		select {
		case <-ctx.Done():
			return false
		case <-changes:
		case <-tick.C:
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// runningOf counts the running pods whose name starts with prefix, and names the node most of
// them run on.
func runningOf(snap *state.Snapshot, prefix string) (int, string) {
	n, perNode := 0, map[string]int{}
	for _, p := range snap.Pods {
		if strings.HasPrefix(p.Name, prefix) && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			n++
			perNode[p.Spec.NodeName]++
		}
	}
	node := ""
	for name, c := range perNode {
		if c > perNode[node] || (c == perNode[node] && name < node) {
			node = name
		}
	}
	return n, node
}

// SetReplicas sets a demo Deployment's ("namespace/name") replicas.
func (e *Environment) SetReplicas(ctx context.Context, deployment string, replicas int32) error {
	_, err := e.scale(ctx, deployment, func(int32) int32 { return replicas })
	return err
}

// Scale changes a demo Deployment's replicas by delta, never below zero.
func (e *Environment) Scale(ctx context.Context, deployment string, delta int) error {
	_, err := e.scale(ctx, deployment, func(cur int32) int32 { return max(0, cur+int32(delta)) })
	return err
}

// scale sets a Deployment's replicas to what to makes of them through its scale subresource,
// writing nothing when that changes nothing, and returns how many it had.
func (e *Environment) scale(ctx context.Context, deployment string, to func(int32) int32) (int32, error) {
	ns, name, ok := strings.Cut(deployment, "/")
	if !ok {
		return 0, fmt.Errorf("deployment %q: want namespace/name", deployment)
	}
	deployments := e.clients.Kube.AppsV1().Deployments(ns)
	var from int32
	// The deployment controller writes too: read, change and write again on a conflict.
	return from, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sc, err := deployments.GetScale(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		from = sc.Spec.Replicas
		if sc.Spec.Replicas = to(from); sc.Spec.Replicas == from {
			return nil
		}
		_, err = deployments.UpdateScale(ctx, name, sc, metav1.UpdateOptions{})
		return err
	})
}

// Interrupt sends a spot interruption for a node's instance through the emulator: the warning
// reaches the interruption queue now, and the instance is taken back when the notice ends.
func (e *Environment) Interrupt(_ context.Context, node string) error {
	sn := e.App.Cluster.Snapshot().NodeByName(node)
	if sn == nil || sn.Node == nil || sn.Node.Spec.ProviderID == "" {
		return fmt.Errorf("node %q has no instance to interrupt", node)
	}
	if sn.Labels()[karpv1.CapacityTypeLabelKey] != karpv1.CapacityTypeSpot {
		return fmt.Errorf("node %q is not a spot node: only spot capacity is interrupted", node)
	}
	id := sn.Node.Spec.ProviderID[strings.LastIndex(sn.Node.Spec.ProviderID, "/")+1:]
	return e.Emulator.Interrupt(emulator.Interruption{Kind: emulator.SpotInterruption, InstanceID: id})
}
