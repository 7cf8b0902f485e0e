package demo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/internal/eventually"
	"github.com/nodepilot/nodepilot/kube"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

// TestConsoleOnTheDemo opens the console, through Run on a simulation screen, on the demo
// environment, and watches one of inflate's pods: listed in the dashboard's Pending pane while
// its node launches, then Running in the :pods view. Then the actions behind the console's keys
// act on the pod's node through the real API server: explain, cordon, uncordon and drain.
func TestConsoleOnTheDemo(t *testing.T) {
	ctx, env := runDemo(t, 5*time.Minute)
	screen, err := uitest.NewScreen(200, 50)
	if err != nil {
		t.Fatal(err)
	}
	backend := env.Console(env.NewStory(false))
	c := ui.New(backend, skin.Default(), ui.Options{Screen: screen})
	consoleCtx, stopConsole := context.WithCancel(ctx)
	consoleDone := make(chan error, 1)
	go func() { consoleDone <- c.Run(consoleCtx) }()
	t.Cleanup(func() {
		stopConsole()
		if err := <-consoleDone; err != nil {
			t.Errorf("the console stopped with %v", err)
		}
	})

	var pod string
	waitScreen(t, screen, 2*time.Minute, "an inflate pod in the Pending pane", func(text string) bool {
		pods, err := env.App.Clients.Kube.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=inflate"})
		if err != nil || len(pods.Items) == 0 {
			return false
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" && paneLine(text, "Pending(why)", p.Name) {
				pod = p.Name
				return true
			}
		}
		return false
	})
	for _, r := range ":pods" {
		screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	screen.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitScreen(t, screen, 2*time.Minute, "pod "+pod+" Running in :pods", func(text string) bool {
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, pod) && strings.Contains(line, string(corev1.PodRunning)) {
				return true
			}
		}
		return false
	})
	// :ctx lists the demo's own kubeconfig, its context current, and says why it will not switch.
	current := kube.ContextName(env.Kubeconfig, "")
	for _, r := range ":ctx" {
		screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	screen.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitScreen(t, screen, 30*time.Second, "context "+current+" current in :ctx", func(text string) bool {
		for _, line := range strings.Split(text, "\n") {
			if f := strings.Fields(strings.Trim(line, "│ ")); len(f) == 2 && f[0] == current && f[1] == "*" {
				return strings.Contains(text, "cannot switch contexts")
			}
		}
		return false
	})
	screen.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
	// The demo does not switch contexts: :ctx NAME says why, and the console stays (Run returns nil).
	for _, r := range ":ctx other" {
		screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	screen.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	waitScreen(t, screen, 30*time.Second, "the demo refusing :ctx", func(text string) bool {
		return strings.Contains(text, "the demo runs on its own local cluster and cannot switch contexts")
	})
	testNodeActions(ctx, t, env, backend, pod)
}

// testNodeActions explains, cordons, uncordons and drains the node running pod.
func testNodeActions(ctx context.Context, t *testing.T, env *Environment, backend *Console, pod string) {
	kube := env.App.Clients.Kube.CoreV1()
	p, err := kube.Pods("default").Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node := p.Spec.NodeName
	// The node's NodePool counts it in its status, as kubectl get nodepools shows.
	n, err := kube.Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pool := n.Labels[karpv1.NodePoolLabelKey]
	waitFor(t, ctx, env, 30*time.Second, "nodepool "+pool+" status", func(*state.Snapshot) error {
		np, err := env.App.Clients.NodePools.Get(ctx, pool)
		if err != nil {
			return err
		}
		ready := meta.FindStatusCondition(np.Status.Conditions, karpv1.ConditionTypeReady)
		if np.Status.Nodes == nil || *np.Status.Nodes < 1 || np.Status.Resources.Cpu().IsZero() || ready == nil || ready.Status != metav1.ConditionTrue {
			return fmt.Errorf("status %+v", np.Status)
		}
		return nil
	})
	x, err := backend.ExplainNode(ctx, node)
	if err != nil {
		t.Fatalf("explain %s: %v", node, err)
	}
	if x.Consolidation == nil || (x.Consolidation.Decision == "" && x.Consolidation.Reason == "") {
		t.Errorf("explain %s: no consolidation simulated or no reason given: %+v", node, x.Consolidation)
	}
	for _, on := range []bool{true, false} {
		if err := backend.Cordon(ctx, node, on); err != nil {
			t.Fatalf("cordon %s %v: %v", node, on, err)
		}
		n, err := kube.Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil || n.Spec.Unschedulable != on {
			t.Fatalf("after cordon %v, node %s unschedulable: %v (%v)", on, node, n.Spec.Unschedulable, err)
		}
	}
	// api's PodDisruptionBudget may refuse the eviction of its pods: the drain says so, they stay,
	// and every other pod leaves.
	refused := ""
	if err := backend.Drain(ctx, node); err != nil {
		if !strings.Contains(err.Error(), "disruption budget api-pdb") {
			t.Fatalf("drain %s: %v", node, err)
		}
		refused = err.Error()
	}
	eventually.True(t, time.Minute, "drain "+node+" emptying it", func(ctx context.Context) (bool, string) {
		list, err := kube.Pods("default").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
		if err != nil {
			return false, err.Error()
		}
		var left []string
		for _, p := range list.Items {
			if !strings.Contains(refused, "evicting default/"+p.Name+":") {
				left = append(left, p.Name)
			}
		}
		return len(left) == 0, fmt.Sprintf("left %v on it (refused: %q)", left, refused)
	})
}

// paneLine reports whether the pane titled title shows a line with text. Panes sit side by side,
// so it reads the columns from the title's to the pane's right border, down to its bottom border.
func paneLine(screenText, title, text string) bool {
	lines := strings.Split(screenText, "\n")
	for i, l := range lines {
		at := strings.Index(l, title)
		if at < 0 {
			continue
		}
		row := []rune(l)
		col := len([]rune(l[:at]))
		left, right := col, col
		for left > 0 && row[left-1] != '┌' {
			left--
		}
		for right < len(row) && row[right] != '┐' {
			right++
		}
		for _, below := range lines[i+1:] {
			cells := []rune(below)
			if len(cells) <= col || cells[col] == '─' {
				break
			}
			if strings.Contains(string(cells[left:min(right, len(cells))]), text) {
				return true
			}
		}
	}
	return false
}

func waitScreen(t *testing.T, screen tcell.SimulationScreen, timeout time.Duration, what string, cond func(string) bool) {
	t.Helper()
	eventually.True(t, timeout, "the console showing "+what, func(context.Context) (bool, string) {
		text := uitest.Text(screen)
		return cond(text), "\n" + text
	})
}
