package ui

import (
	"github.com/nodepilot/nodepilot/ui/model"

	"slices"
	"strings"
)

// command is a ":" command: its name, aliases and what it does.
type command struct {
	name    string
	aliases []string
	help    string
	run     func(c *Console)
}

// commands are the console's ":" commands.
func commands() []command {
	return []command{
		{"dashboard", []string{"dash", "home"}, "the five live panes", func(c *Console) { c.reset(c.newDashboard()) }},
		{"pending", []string{"pp"}, "pending pods and why", func(c *Console) { c.openKind(model.KindPending) }},
		{"nodepools", []string{"np", "nodepool"}, "NodePools: usage against limits, cost", func(c *Console) { c.openKind(model.KindNodePools) }},
		{"nodes", []string{"no", "node"}, "nodes by capacity type and zone", func(c *Console) { c.openKind(model.KindNodes) }},
		{"nodeclaims", []string{"nc", "nodeclaim"}, "NodeClaims", func(c *Console) { c.openKind(model.KindNodeClaims) }},
		{"pods", []string{"po", "pod"}, "every pod", func(c *Console) { c.openKind(model.KindPods) }},
		{"decisions", []string{"dec", "decision"}, "disruption decisions, and the rules that forbid one", func(c *Console) { c.openKind(model.KindDecisions) }},
		{"interruptions", []string{"int", "interruption"}, "spot interruptions and other instance events", func(c *Console) { c.openKind(model.KindInterruptions) }},
		{"events", []string{"ev", "event", "journal"}, "every journal entry", func(c *Console) { c.openKind(model.KindEvents) }},
		{"rightsizing", []string{"rs", "rightsize"}, "requests against use per workload, and what fitting them saves", func(c *Console) { c.openRightSizing() }},
		{"skins", []string{"skin"}, "pick a skin", func(c *Console) { c.openKind(model.KindSkins) }},
		{"help", []string{"?"}, "the keys", func(c *Console) { c.showHelp() }},
		{"quit", []string{"q", "q!", "exit"}, "quit", func(c *Console) { c.quit() }},
	}
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
