package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodepilot/nodepilot/ui/model"
)

// command is a ":" command: its name, aliases, the arguments it takes and what it does.
type command struct {
	name    string
	aliases []string
	// args describes the arguments it takes, for :help ("" takes none).
	args string
	help string
	run  func(c *Console, args []string) error
}

// commands are the console's ":" commands.
func commands() []command {
	return []command{
		{"dashboard", []string{"dash", "home"}, "", "the five live panes", noArgs(func(c *Console) { c.views.reset(c.newDashboard()) })},
		{"pending", []string{"pp"}, "[NAMESPACE|-n NS] [-l SEL|/RE]", "pending pods and why", table(model.KindPending)},
		{"nodepools", []string{"np", "nodepool"}, "[NAME] [/RE]", "NodePools: usage against limits, cost; NAME drills into its nodes", table(model.KindNodePools)},
		{"nodes", []string{"no", "node"}, "[spot|on-demand|ZONE|NODEPOOL]... [-l SEL|/RE]", "nodes by capacity type and zone", table(model.KindNodes)},
		{"nodeclaims", []string{"nc", "nodeclaim"}, "[spot|on-demand|ZONE|NODEPOOL]... [-l SEL|/RE]", "NodeClaims", table(model.KindNodeClaims)},
		{"pods", []string{"po", "pod"}, "[NAMESPACE|-n NS] [-l SEL|/RE]", "every pod", table(model.KindPods)},
		{"decisions", []string{"dec", "decision"}, "[/RE]", "disruption decisions, and the rules that forbid one", table(model.KindDecisions)},
		{"interruptions", []string{"int", "interruption"}, "[/RE]", "spot interruptions and other instance events", table(model.KindInterruptions)},
		{"events", []string{"ev", "event", "journal"}, "[/RE]", "every journal entry", table(model.KindEvents)},
		{"explain", []string{"x"}, "POD|NAMESPACE/POD|NODE|NODEPOOL", "why a pod waits, why a node stays or goes, a NodePool's budgets", explainNamed},
		{"rightsizing", []string{"rs", "rightsize"}, "", "requests against use per workload, and what fitting them saves", noArgs(func(c *Console) { c.openRightSizing() })},
		{"ctx", []string{"context", "contexts"}, "[CONTEXT]", "the kubeconfig's contexts; CONTEXT switches to it (the same modes; asks first when the autoscaler would act there)", switchCommand},
		{"skins", []string{"skin"}, "", "pick a skin", noArgs(func(c *Console) { c.openKind(model.KindSkins) })},
		{"help", []string{"?"}, "", "the keys", noArgs(func(c *Console) { c.showHelp() })},
		{"quit", []string{"q", "q!", "exit"}, "", "quit", noArgs(func(c *Console) { c.quit() })},
	}
}

// noArgs is a command that takes no arguments.
func noArgs(run func(c *Console)) func(c *Console, args []string) error {
	return func(c *Console, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("takes no arguments, got %q", strings.Join(args, " "))
		}
		run(c)
		return nil
	}
}

// runCommand runs a command line: a command's name or alias, then its arguments.
func (c *Console) runCommand(line string) error {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil
	}
	cmd, found := findCommand(fields[0])
	if !found {
		return fmt.Errorf("unknown command :%s (Tab completes; :help lists the commands)", fields[0])
	}
	if err := cmd.run(c, fields[1:]); err != nil {
		return fmt.Errorf(":%s: %w", cmd.name, err)
	}
	return nil
}

// findCommand returns the command a name or alias names.
func findCommand(text string) (command, bool) {
	name := strings.ToLower(strings.TrimSpace(text))
	for _, cmd := range commands() {
		if cmd.name == name || slices.Contains(cmd.aliases, name) {
			return cmd, true
		}
	}
	return command{}, false
}

// complete is the rest of the first command name (then alias) that text starts, or "".
func complete(text string) string {
	t := strings.ToLower(text)
	if t == "" {
		return ""
	}
	for _, cmd := range commands() {
		if strings.HasPrefix(cmd.name, t) && cmd.name != t {
			return cmd.name[len(t):]
		}
	}
	for _, cmd := range commands() {
		for _, a := range cmd.aliases {
			if strings.HasPrefix(a, t) && a != t {
				return a[len(t):]
			}
		}
	}
	return ""
}
