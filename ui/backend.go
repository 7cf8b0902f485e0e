package ui

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/rightsizing"
	"github.com/nodepilot/nodepilot/ui/keymap"
	"github.com/nodepilot/nodepilot/usage"
)

// Backend is everything the console reads and does. Every method must be safe from any
// goroutine. Methods with a context may block: the console calls them off the UI goroutine. The
// others must not block: Info, Pause and Resume are called on the UI goroutine; Snapshot,
// Journal, Budgets, Provisioning, Price and Usage by the view model builder. Contexts reads the
// kubeconfig: the console calls it off the UI goroutine.
type Backend interface {
	// Snapshot is the cluster state now.
	Snapshot() *state.Snapshot
	// Changes receives a value (coalesced) whenever the cluster state changes.
	Changes() <-chan struct{}
	// Journal is a copy of the autoscaler's journal: decisions, refusals, events and per-node
	// blockers (empty when nothing journals).
	Journal() journal.Snapshot
	// JournalChanges receives a value (coalesced) whenever the journal changes; nil when nothing
	// journals.
	JournalChanges() <-chan struct{}
	// Budgets are what a NodePool's disruption budgets allow now, one per disruption reason.
	Budgets(nodePool string) []disruption.Allowance
	// Provisioning is the provisioner's last pass (what it planned and why pods fit nowhere),
	// or nil before the first.
	Provisioning() *provisioning.Outcome
	// Price prices a node by its instance type, zone and capacity type (cost.Node).
	Price(*state.Node) (cost.Price, bool)
	// ExplainPod runs the explainer for one pod: per NodePool, why it cannot take the pod. A nil
	// PodError means the pod fits somewhere.
	ExplainPod(ctx context.Context, pod *corev1.Pod) (*scheduling.PodError, error)
	// ExplainNode says why a node is or is not being disrupted, and what disrupting it would save.
	ExplainNode(ctx context.Context, node string) (NodeExplanation, error)
	// Info is the header's facts: cluster, versions and the autoscaler's mode.
	Info() Info
	// Usage is the latest reading of metrics.k8s.io (what nodes and pods use), or why there is
	// none; nil when the backend does not read it.
	Usage() *usage.Snapshot
	// RightSizing compares each workload's requests with its use over the usage window, and
	// prices right-sized requests by planning the fleet from nothing both ways.
	RightSizing(ctx context.Context) (*rightsizing.Report, error)

	// Logs streams a container's logs as the kubelet serves them (pods/log), until ctx ends or
	// the stream does; the caller closes the reader.
	Logs(ctx context.Context, namespace, pod string, opts LogOptions) (io.ReadCloser, error)
	// Exec runs a command in a container (pods/exec, as kubectl exec) with its standard
	// streams, until the command ends or ctx does; a command that exits non-zero is an error.
	Exec(ctx context.Context, namespace, pod string, opts ExecOptions) error

	// Cordon marks a node unschedulable (on) or schedulable again.
	Cordon(ctx context.Context, node string, on bool) error
	// Drain cordons a node and evicts its pods through the Eviction API.
	Drain(ctx context.Context, node string) error
	// DeleteNodeClaim deletes a NodeClaim; its node is drained and its instance terminated.
	DeleteNodeClaim(ctx context.Context, name string) error
	// Contexts are the kubeconfig's context names, sorted, and the one the console is on (:ctx).
	Contexts() (names []string, current string, err error)
	// CheckContext checks that the console can switch to a context before anything of the
	// current one is stopped: the kubeconfig has it, its API server answers /version within a
	// few seconds, and the backend has what it needs to run there (an acting autoscaler, the
	// cluster's name). The error names the context and the cause.
	CheckContext(ctx context.Context, name string) error

	// Pause stops the autoscaler from acting (it keeps watching) until Resume.
	Pause()
	// Resume undoes Pause.
	Resume()
}

// LogOptions choose which log lines Logs streams.
type LogOptions struct {
	// Container names the container; "" is the pod's only one.
	Container string
	// Follow keeps the stream open for new lines.
	Follow bool
	// Previous streams the previous (terminated) instance of the container.
	Previous bool
	// Timestamps prefixes each line with its RFC 3339 time.
	Timestamps bool
	// TailLines is how many of the last lines to start with (0: all).
	TailLines int64
}

// ExecOptions say what Exec runs and with which streams.
type ExecOptions struct {
	// Container names the container; "" is the pod's only one.
	Container string
	// Command is the command and its arguments.
	Command []string
	// Stdin, when set, is the command's standard input; Stdout its output (and, with TTY, its
	// errors); Stderr its errors without TTY.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// TTY gives the command a terminal.
	TTY bool
	// Sizes, with TTY, receives the terminal's size whenever it changes; closed when done.
	Sizes <-chan TerminalSize
}

// TerminalSize is a terminal's size in cells.
type TerminalSize struct {
	Width, Height uint16
}

// Info is what the header says about the cluster and the autoscaler.
type Info struct {
	// Context is the kubeconfig context ("in-cluster" inside a pod), Cluster the cluster's name.
	Context, Cluster string
	// KubernetesVersion is the API server's version ("v1.33.1").
	KubernetesVersion string
	// ReadOnly: nothing writes to the cluster (no autoscaler, no actions).
	ReadOnly bool
	// DryRun: the autoscaler decides and journals, and changes nothing.
	DryRun bool
	// Paused: the autoscaler watches but does not act.
	Paused bool
	// ShellNote is said before a shell opens: in the demo, that kwok runs the shell on this
	// machine, and where; "" elsewhere.
	ShellNote string
	// ShellPipes: the cluster's exec gives the command pipes, never a terminal, whatever is
	// asked (kwok, in the demo). The shell then runs interactive over pipes, the local terminal
	// left cooked so that it echoes and edits the line.
	ShellPipes bool
	// NoSwitch says why :ctx cannot switch contexts here (the demo runs on its own local
	// cluster); "" when it can.
	NoSwitch string
	// NoCloud says why there is no cloud provider (read-only without AWS), so no prices: "" when
	// there is one.
	NoCloud string
}

// keyMode is the mode as the keymap checks actions against it.
func (i Info) keyMode() keymap.Mode { return keymap.Mode{ReadOnly: i.ReadOnly, DryRun: i.DryRun} }

// Mode is the autoscaler's state in a word: read-only, dry-run, paused or running.
func (i Info) Mode() string {
	switch {
	case i.ReadOnly:
		return "read-only"
	case i.DryRun && i.Paused:
		return "dry-run, paused"
	case i.DryRun:
		return "dry-run"
	case i.Paused:
		return "paused"
	}
	return "running"
}

// NodeExplanation is why a node is or is not being disrupted, and what disrupting it would save.
type NodeExplanation struct {
	// Blocked is why the node is not disrupted now (the journal's WhyNot: budget, PDB,
	// do-not-disrupt, consolidateAfter with its Until, two replacements needed, no cheaper
	// type...), or nil when nothing blocks it.
	Blocked *journal.Entry
	// Consolidation is what consolidating the node alone would do if nothing blocked it, or nil
	// when the engine did not simulate it.
	Consolidation *Consolidation
}

// Consolidation is a simulated consolidation of one node.
type Consolidation struct {
	// Decision is "delete" (its pods fit elsewhere) or "replace"; "" when it would not happen.
	Decision string
	// Replacements are the instance types it would be replaced with.
	Replacements []string
	// PriceBefore and PriceAfter are in $/h.
	PriceBefore, PriceAfter float64
	// Reason says why it would not happen when Decision is "" (a disruption Blocked* code and
	// message, such as NoCheaperType).
	Reason string
	// Order says where consolidation considers the node among the candidates, and why; "" when
	// it is none.
	Order string
}

// Demo is the optional demo part of a Backend: a Backend that also implements Demo gets the
// demo keys (+ and - scale, i interrupts, a toggles autoplay) and the story line. Scale and
// Interrupt may block (they run off the UI goroutine); the others must not.
type Demo interface {
	// Deployments are the demo Deployments ("namespace/name") that + and - scale.
	Deployments() []string
	// Scale changes a demo Deployment's replicas by delta.
	Scale(ctx context.Context, deployment string, delta int) error
	// Interrupt sends a spot interruption for a node's instance through the emulator.
	Interrupt(ctx context.Context, node string) error
	// Autoplay reports whether the scripted story plays; SetAutoplay starts or stops it.
	Autoplay() bool
	SetAutoplay(on bool)
	// Story is the story's status line ("act 2 of 4: scaled to zero, consolidating").
	Story() string
}
